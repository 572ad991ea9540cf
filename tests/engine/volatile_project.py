"""Projects whose test ids change between processes (a parametrize id made from the
clock at import), shared by the engine, fidelity and command-line tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

MOD = "tests/test_v.py"
VICTIM, POLLUTER, FIXED = (
    f"{MOD}::test_victim",
    f"{MOD}::test_polluter",
    f"{MOD}::test_stamp[fixed]",
)
STAMP = f"{MOD}::test_stamp["  # the prefix of the volatile id
GROW = f"{MOD}::test_grow["  # a set whose size changes with every collection

# The original order passes: the victim runs before its polluter.
VOLATILE = {
    "pytest.ini": "[pytest]\n",
    MOD: """
        import datetime

        import pytest

        SEEN = []

        def test_victim():
            assert SEEN == []

        @pytest.mark.parametrize("stamp", [str(datetime.datetime.now()), "fixed"])
        def test_stamp(stamp):
            assert stamp

        def test_polluter():
            SEEN.append(1)
    """,
}


# The same victim and polluter, and a parametrize set that every collection puts in its
# own order (as iterating a set of strings does under hash randomization): the same ids,
# another original order in each process.
SHUFFLED = {
    "pytest.ini": "[pytest]\n",
    MOD: """
        import random

        import pytest

        SEEN = []
        NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
        random.shuffle(NAMES)

        def test_victim():
            assert SEEN == []

        @pytest.mark.parametrize("name", NAMES)
        def test_named(name):
            assert name

        def test_polluter():
            SEEN.append(1)
    """,
}


def grown(counter: Path) -> str:
    """A test module whose ``test_grow`` is parametrized with one more value at every
    collection (``counter`` counts them, outside the project): no other process collects
    a set of its size, so it cannot be matched."""
    return textwrap.dedent(f"""
        from pathlib import Path

        import pytest

        COUNTER = Path({str(counter)!r})
        N = int(COUNTER.read_text()) if COUNTER.exists() else 0
        COUNTER.write_text(str(N + 1))

        @pytest.mark.parametrize("k", [f"{{N}}-{{i}}" for i in range(N + 1)])
        def test_grow(k):
            pass
    """)


def growing(counter: Path) -> dict[str, str]:
    """:data:`VOLATILE` plus :func:`grown`'s ``test_grow``."""
    return {**VOLATILE, MOD: textwrap.dedent(VOLATILE[MOD]) + grown(counter)}


def stamp_of(ids: list[str]) -> str:
    """The volatile id among ``ids``."""
    return next(t for t in ids if t.startswith(STAMP) and t != FIXED)
