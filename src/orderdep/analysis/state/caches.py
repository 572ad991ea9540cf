"""``cache:`` roots: what an ``functools.lru_cache`` holds, as a fingerprint.

A cache is state like a module global (paper 001 §III-A counts everything reachable from
static fields): a test that fills it with a result computed under patched data leaves
that result for later tests. Its statistics are not its content: ``cache_clear()`` resets
``cache_info()`` to zero, so a test that clears a cache and fills it again up to the same
``(currsize, misses)`` would show no write, and hits change the statistics without
changing the content. So the fingerprint is that of the entries, ``(key, result)`` pairs,
folded order-insensitively (a hit reorders an LRU list, it writes nothing).

The C wrapper has no API for its entries; its garbage-collector traversal has
(CPython 3.9 to 3.13): ``gc.get_referents`` lists each entry's key then its result, oldest
first (with the entry's type in between on newer versions), before the cache dict, which
maps key -> entry for bounded caches and key -> result for unbounded ones.
:func:`cache_entries` reads that and checks it against the dict; when the layout is not the
expected one, or the cache is bigger than the fingerprint budget, the fingerprint falls
back to the statistics.
"""

from __future__ import annotations

import functools
import gc
from typing import TYPE_CHECKING, Any, Optional

from orderdep.analysis.state.fingerprint import Fingerprinter, identity

_WRAPPER: Any = getattr(functools, "_lru_cache_wrapper", None)
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Stats = tuple[int, int, int]  # (hits, misses, currsize)


def _cache_dict(func: Any, refs: list[Any]) -> tuple[int, Optional[dict[Any, Any]]]:
    """Position and value of the cache dict among ``refs`` (the other dict is __dict__)."""
    own = getattr(func, "__dict__", None)
    for i, ref in enumerate(refs):
        if type(ref) is dict and ref is not own:
            return i, ref
    return -1, None


def cache_entries(func: Any) -> Optional[list[tuple[Any, Any]]]:
    """The ``(key, result)`` pairs an lru_cache wrapper holds, or None if unreadable."""
    if type(func) is not _WRAPPER:
        return None
    refs = gc.get_referents(func)
    at, cache = _cache_dict(func, refs)
    if cache is None:
        return None
    if not cache:
        return []
    first = next(iter(cache.values()))
    link_type = type(first)
    if link_type.__name__ != "_lru_list_elem":  # unbounded: the dict holds the results
        return list(cache.items())
    skip = (identity(type(func)), identity(link_type))
    flat = [r for r in refs[:at] if identity(r) not in skip]
    if len(flat) != 2 * len(cache):
        return None
    pairs = list(zip(flat[::2], flat[1::2]))
    keys = {identity(k) for k in cache}
    if any(identity(k) not in keys for k, _ in pairs):
        return None
    return pairs


def cache_stats(func: Any) -> Optional[Stats]:
    try:
        info = func.cache_info()
        return (int(info.hits), int(info.misses), int(info.currsize))
    except Exception:
        return None


class CacheFingerprints:
    """Fingerprints of ``cache:`` roots, recomputed only when the cache may have changed.

    A cache whose statistics did not move was not called since the last look, so unless
    the read tracer says the test named it (``touched``) its last fingerprint stands.
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[int, Optional[Stats], int]] = {}  # (id, stats, fp)

    def forget(self, name: str) -> None:
        self._last.pop(name, None)

    def fingerprint(
        self, name: str, func: Any, walker: Fingerprinter, touched: Optional[set[str]]
    ) -> int:
        stats = cache_stats(func)
        last = self._last.get(name)
        if (
            last is not None
            and last[0] == identity(func)
            and stats is not None
            and last[1] == stats
            and (touched is not None and name not in touched)
        ):
            return last[2]
        fp = self._compute(name, func, walker, stats)
        self._last[name] = (identity(func), stats, fp)
        return fp

    def _compute(self, name: str, func: Any, walker: Fingerprinter, stats: Optional[Stats]) -> int:
        if stats is None:
            return hash(("cache", identity(func)))
        try:
            entries = cache_entries(func)
        except Exception:
            entries = None
        if entries is None or len(entries) > walker.max_nodes:
            return hash(("cache stats", stats[1], stats[2]))  # (misses, currsize)
        return walker.fingerprint_items(entries, name)
