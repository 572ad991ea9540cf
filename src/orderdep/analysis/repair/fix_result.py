"""What repairing an OD test produces: a verified :class:`Fix` (its insertions, the
changed files and how it was verified), the :class:`FixResult` around it, and
:func:`apply_fix`, which writes a fix into the project's files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.analysis.repair.write.patches import (
    Changes,
    Insertion,
    apply_insertions,
    changed_lines,
    unified_diff,
)


@dataclass
class Fix:
    """A verified patch for one OD test."""

    test: str
    strategy: str
    description: str
    insertions: list[Insertion]
    changes: Changes
    verification: Verification

    @property
    def diff(self) -> str:
        return unified_diff(self.changes)

    @property
    def size(self) -> int:
        return changed_lines(self.changes)


@dataclass
class Rejected:
    """A candidate patch verification rejected, kept for a repair of two tests together:
    its insertions and what it broke (:attr:`Verification.broken`)."""

    strategy: str
    description: str
    insertions: list[Insertion]
    broken: list[str]


@dataclass
class FixResult:
    """What repairing one OD test produced."""

    test: str
    kind: str
    fix: Optional[Fix] = None
    debug: Optional[DebugResult] = None
    notes: list[str] = field(default_factory=list)
    candidates: int = 0
    verified: int = 0  # candidates run through verification
    target: Optional[Target] = None  # the orders the fix was verified in
    reproduced: bool = True  # False: it passed in its failing order, nothing to fix
    batched: bool = False  # its set-up was verified together with an earlier brittle's
    rejected: list[Rejected] = field(default_factory=list)  # the first few, smallest first


def apply_fix(project: Path, fix: Fix) -> list[str]:
    """Write ``fix`` into the project's files (through libcst); returns the files changed."""
    changes = apply_insertions(project, fix.insertions)
    for rel, (_, new) in changes.items():
        (project / rel).write_text(new, encoding="utf-8")
    return sorted(changes)
