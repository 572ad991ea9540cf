"""Shared state between tests: roots, their fingerprints, per-test reads and writes.

The collection half of PRADET (paper 001 §III-A) for Python: :mod:`.roots` names and
fingerprints every root a test can leave state in, :mod:`.reads` records what a test may
have read, and :mod:`.probe` is the engine probe that reports both per test.
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
