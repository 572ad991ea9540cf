"""What refinement finds: manifest dependencies, and the edges it removed, could not
test or left untested, with what it cost (:mod:`.refine` produces them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from orderdep.analysis.pradet.schedules import Edge
from orderdep.core.odmodel import ODSpec

Kind = Literal["brittle", "victim"]


@dataclass
class ManifestDependency:
    """A data dependency whose violation changes the dependent test's outcome."""

    dependent: str
    dependee: str
    roots: list[str]
    kind: Kind  # "brittle": dependee is a state-setter; "victim": dependee is a polluter
    failing_order: list[str]
    passing_order: list[str]
    source: str = "reference"  # which collection found the edge: "reference" or "reversed"

    def to_json(self) -> dict[str, Any]:
        return {
            "dependent": self.dependent,
            "dependee": self.dependee,
            "roots": list(self.roots),
            "kind": self.kind,
            "failing_order": list(self.failing_order),
            "passing_order": list(self.passing_order),
            "source": self.source,
        }


@dataclass
class RefineResult:
    """Manifest dependencies found, edges removed or left untestable, and the cost."""

    manifest: list[ManifestDependency] = field(default_factory=list)
    removed: list[Edge] = field(default_factory=list)
    untestable: list[Edge] = field(default_factory=list)
    untested: list[Edge] = field(default_factory=list)  # left when the time ran out
    executions: int = 0  # test executions, reference runs included
    orders: list[list[str]] = field(default_factory=list)
    data_dependencies: int = 0

    @property
    def orders_run(self) -> int:
        return len(self.orders)

    def merge(self, other: RefineResult) -> None:
        """Add another pass's findings (a manifest pair found twice is kept once)."""
        seen = {(m.dependent, m.dependee, m.kind) for m in self.manifest}
        self.manifest += [
            m for m in other.manifest if (m.dependent, m.dependee, m.kind) not in seen
        ]
        self.removed += other.removed
        self.untestable += other.untestable
        self.untested += other.untested
        self.executions += other.executions
        self.orders += other.orders
        self.data_dependencies += other.data_dependencies

    def to_specs(self) -> list[ODSpec]:
        """The manifest dependencies as OD specs, one per dependent test and kind.

        Several state-setters (polluters) of one test become alternatives of one spec; PRADET
        tested each with the others in place, so this is a summary, not a proof that
        each alone suffices.
        """
        specs: dict[tuple[str, str], ODSpec] = {}
        for m in self.manifest:
            spec = specs.setdefault((m.dependent, m.kind), ODSpec(test=m.dependent, kind=m.kind))
            target = spec.state_setters if m.kind == "brittle" else spec.polluters
            if m.dependee not in target:
                target.append(m.dependee)
        return list(specs.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "manifest": [m.to_json() for m in self.manifest],
            "removed": [list(e) for e in self.removed],
            "untestable": [list(e) for e in self.untestable],
            "untested": [list(e) for e in self.untested],
            "data_dependencies": self.data_dependencies,
            "executions": self.executions,
            "orders_run": self.orders_run,
        }


__all__ = ["Kind", "ManifestDependency", "RefineResult"]
