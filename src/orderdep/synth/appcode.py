"""Source of the ``app`` package in generated suites.

Each app module has a fixed header; plantings append their own snippets (one class, cached
function or setting per planted test). ``text``, ``money`` and ``listutil`` hold the pure
helpers the filler tests (:mod:`orderdep.synth.fillers`) exercise. Some modules offer a
reset (``registry.clear()``, ``events.reset()``, ``flags.reset()``, ``Pool.reset()``) and
some do not, as in real code.
"""

from __future__ import annotations

import textwrap


def source(text: str) -> str:
    """``text`` dedented, without its first newline."""
    return textwrap.dedent(text).lstrip("\n")


APP_INIT = source('''
    """A small order-management application."""

    __version__ = "0.3.0"
    ''')

TEXT = source('''
    """Text helpers."""

    from __future__ import annotations


    def slugify(value: str) -> str:
        """Lower-case ``value`` and join its alphanumeric runs with dashes."""
        out: list[str] = []
        dash = False
        for ch in value.lower():
            if ch.isalnum():
                out.append(ch)
                dash = False
            elif out and not dash:
                out.append("-")
                dash = True
        return "".join(out).rstrip("-")


    def truncate(value: str, width: int, suffix: str = "...") -> str:
        if len(value) <= width:
            return value
        return value[: max(0, width - len(suffix))] + suffix


    def initials(name: str) -> str:
        return "".join(part[0].upper() for part in name.split())
    ''')

MONEY = source('''
    """Amounts are integers in cents."""

    from __future__ import annotations


    def format_cents(cents: int, currency: str = "EUR") -> str:
        sign = "-" if cents < 0 else ""
        cents = abs(cents)
        return f"{sign}{cents // 100}.{cents % 100:02d} {currency}"


    def parse_amount(text: str) -> int:
        """Parse ``"12.5"`` into 1250 cents."""
        whole, _, frac = text.strip().partition(".")
        return int(whole) * 100 + int((frac + "00")[:2])


    def percent_of(cents: int, percent: int) -> int:
        """``percent`` % of ``cents``, rounded half up."""
        return (cents * percent + 50) // 100


    def split_evenly(cents: int, parts: int) -> list[int]:
        """Split an amount into ``parts`` shares."""
        return [cents // parts] * parts
    ''')

LISTUTIL = source('''
    """Small sequence helpers."""

    from __future__ import annotations

    from collections.abc import Iterable, Sequence
    from typing import TypeVar

    T = TypeVar("T")


    def chunked(items: Sequence[T], size: int) -> list[list[T]]:
        return [list(items[i : i + size]) for i in range(0, len(items), size)]


    def dedupe(items: Iterable[T]) -> list[T]:
        """Drop repeated items, keeping the first occurrence."""
        seen: set[T] = set()
        out: list[T] = []
        for item in items:
            if item not in seen:
                seen.add(item)
                out.append(item)
        return out


    def flatten(groups: Iterable[Iterable[T]]) -> list[T]:
        return [item for group in groups for item in group]
    ''')


def balancer_source(replica_share: float) -> str:
    """``app/balancer.py``: reads go to a replica with probability ``replica_share``."""
    return source(f'''
        """Chooses the database node that serves a read."""

        from __future__ import annotations

        import random

        REPLICA_SHARE = {replica_share!r}

        _rng = random.SystemRandom()


        def choose_node() -> str:
            return "replica" if _rng.random() < REPLICA_SHARE else "primary"
        ''')
