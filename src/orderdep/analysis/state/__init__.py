"""Shared state between tests: roots, their fingerprints, per-test reads and writes.

The collection half of PRADET (paper 001 §III-A) for Python: :mod:`.roots` names and
fingerprints every root a test can leave state in (values through :mod:`.fingerprint`,
lru caches through :mod:`.caches`, files through :mod:`.files`, wider-scoped fixture
values through :mod:`.fixtures`), :mod:`.reads` records what a test may have read, and
:mod:`.probe` is the engine probe that reports both per test. A root that cannot be looked
at counts by identity (or keeps its last fingerprint); it never stops a snapshot.
"""

from __future__ import annotations

from orderdep.analysis.state.roots import RootsConfig, StateTracker, diff, snapshot
from orderdep.analysis.state.values import RootValue, describe, get, restore

__all__ = [
    "RootValue",
    "RootsConfig",
    "StateTracker",
    "describe",
    "diff",
    "get",
    "restore",
    "snapshot",
]
