"""What PRADET concluded: confirmed dependencies (:class:`Evidence`) and the whole result.

Shared by the confirmation (:mod:`.confirm`), the report (:mod:`.findings`) and the
pipeline that produces both (:mod:`.pipeline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from orderdep.analysis.pradet.collection import Collected
from orderdep.analysis.pradet.manifest import ManifestDependency, RefineResult


@dataclass
class Evidence:
    """A confirmed manifest dependency with the orders that show it.

    ``alone``: the dependee alone shows it (victim: ``[dependee, dependent]`` fails and
    ``[dependent]`` passes; brittle: ``[dependent]`` fails, ``[dependee, dependent]``
    passes). Otherwise the orders are refinement's schedule without and with the dependee
    right before the dependent. ``conditional``: the dependent alone contradicts the kind,
    so the dependency holds only with other tests of the schedule around. ``found_by``:
    ``"refinement"``; ``"alternatives"`` for a dependee whose edge refinement removed
    because another dependee did the same; ``"search"`` for the polluters (state-setters)
    behind a conditional dependency (see :mod:`.confirm`).
    """

    dependency: ManifestDependency
    alone: bool = False
    conditional: bool = False
    confirmed: bool = False  # False when confirmation was switched off
    found_by: str = "refinement"
    cleaner: Optional[str] = None  # a victim's: resets this polluter (group) before it

    def to_json(self) -> dict[str, Any]:
        out = self.dependency.to_json()
        out.update(
            alone=self.alone,
            conditional=self.conditional,
            confirmed=self.confirmed,
            found_by=self.found_by,
        )
        if self.cleaner is not None:
            out["cleaner"] = self.cleaner
        return out


@dataclass
class PradetResult:
    """Collections, refinement, confirmed dependencies and what it all cost."""

    collected: Collected
    refined: RefineResult = field(default_factory=RefineResult)
    evidence: list[Evidence] = field(default_factory=list)
    unconfirmed: list[ManifestDependency] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)  # dependents found non-deterministic
    confirm_executions: int = 0
    alternative_executions: int = 0
    search_executions: int = 0
    check_orders: int = 0
    wall_seconds: float = 0.0

    @property
    def executions(self) -> dict[str, int]:
        out = {
            "collection": self.collected.executions,
            "refinement": self.refined.executions,
            "confirmation": self.confirm_executions,
            "alternatives": self.alternative_executions,
            "search": self.search_executions,
        }
        out["total"] = sum(out.values())
        return out

    @property
    def orders_run(self) -> int:
        return len(self.collected.collections) + self.refined.orders_run + self.check_orders

    @property
    def manifest(self) -> list[Evidence]:
        """Confirmed dependencies that become findings (conditional ones excluded)."""
        return [e for e in self.evidence if not e.conditional]
