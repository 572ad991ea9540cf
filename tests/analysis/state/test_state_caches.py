from __future__ import annotations

import functools
import sys

import pytest

from orderdep.analysis.state.caches import CacheFingerprints, cache_entries
from orderdep.analysis.state.fingerprint import Fingerprinter

OLD_LRU = pytest.mark.skipif(
    sys.version_info < (3, 10),
    reason="a bounded lru_cache's entries are read from the layout of CPython 3.10+; "
    "older versions fall back to the cache statistics",
)


@OLD_LRU
def test_entries_of_bounded_and_unbounded_caches() -> None:
    @functools.lru_cache(maxsize=8)
    def bounded(x: object, y: int = 0) -> tuple[object, int]:
        return (x, y)

    @functools.cache
    def unbounded(x: str) -> list[str]:
        return [x]

    assert cache_entries(bounded) == []
    bounded("a")
    bounded(3, y=1)
    bounded("a")  # a hit moves the entry to the front, adds none
    entries = cache_entries(bounded)
    assert entries is not None and len(entries) == 2
    assert entries[-1] == ("a", ("a", 0))  # least recently used first
    key, result = entries[0]
    assert result == (3, 1) and key[0] == 3 and key[-2:] == ("y", 1)
    unbounded("b")
    assert cache_entries(unbounded) == [("b", ["b"])]
    assert cache_entries(len) is None  # not a cache


def test_fingerprints_reuse_the_last_one_when_nothing_moved() -> None:
    @functools.lru_cache(maxsize=4)
    def square(x: int) -> int:
        return x * x

    caches = CacheFingerprints()
    walker = Fingerprinter()
    first = caches.fingerprint("cache:m.square", square, walker, touched=set())
    assert caches.fingerprint("cache:m.square", square, walker, touched=set()) == first
    square(2)
    second = caches.fingerprint("cache:m.square", square, walker, touched=set())
    assert second != first
    square(2)  # a hit: the statistics move, the content does not
    assert caches.fingerprint("cache:m.square", square, walker, touched=set()) == second
    small = Fingerprinter(max_nodes=0)  # more entries than the budget: statistics only
    caches.forget("cache:m.square")
    assert caches.fingerprint("cache:m.square", square, small, None) == hash(("cache stats", 1, 1))
