"""What the Debugger reports: each differing root (:class:`RootInfo`, with the value it
had in each order as a :class:`ValueView`) and the verdict for one OD test
(:class:`DebugResult`). Repair strategies read these; only the Debugger makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from orderdep.analysis.repair.locate.rebound import REBOUND_KEY, rebound_differs
from orderdep.analysis.repair.locate.root_changes import change_lines
from orderdep.analysis.repair.locate.value_view import ValueView


def object_attributes(*descs: Any) -> Optional[list[dict[Any, Any]]]:
    """Attribute -> description, for each of ``descs`` when all describe one object of
    the same type changed in place (``["obj", type, [[attr, desc], ...]]``); else None."""
    if not descs or not all(isinstance(d, list) and len(d) == 3 and d[0] == "obj" for d in descs):
        return None
    if any(d[:2] != descs[0][:2] for d in descs):
        return None
    return [{k: v for k, v in d[2]} for d in descs]


@dataclass(frozen=True)
class RootInfo:
    """One root whose value before the OD test differs between the two orders."""

    name: str
    kind: str
    failing: ValueView
    passing: ValueView
    changes: tuple[str, ...] = ()
    module: Optional[str] = None  # global, classattr, cache
    attrs: tuple[str, ...] = ()  # attribute path inside ``module``
    module_file: Optional[str] = None  # the module's file, relative to the rootdir
    shadowed: tuple[str, ...] = ()  # the module or its packages, hidden by a package's name
    path: Optional[str] = None  # file roots: relative path ("$TMP/..." for the temp dir)
    var: Optional[str] = None  # env roots
    aliases: tuple[str, ...] = ()  # other roots naming the same object
    fixture: Optional[str] = None  # fixture roots: the fixture's name
    scope: Optional[str] = None  # fixture roots: session, package, module or class
    value_module: Optional[str] = None  # fixture roots: where the value's class lives
    value_class: Optional[str] = None
    value_file: Optional[str] = None
    owner_module: Optional[str] = None  # attribute roots: the class of the object holding it
    owner_class: Optional[str] = None
    owner_file: Optional[str] = None
    # package roots (``sys.modules['pkg.*']``): the modules only the passing order had
    missing_modules: tuple[str, ...] = ()
    # a global the failing order bound to another object (a reload): the object the name
    # held first is untouched, so keeping a reference to it is a whole restore
    rebound: bool = False

    @classmethod
    def from_captures(
        cls, name: str, failing: Optional[dict[str, Any]], passing: Optional[dict[str, Any]]
    ) -> RootInfo:
        meta = failing or passing or {}
        f, p = fixture_views(failing, passing)
        kind = str(meta.get("kind", "other"))
        typed = next((c for c in (failing, passing) if c and c.get("value_class")), meta)
        return cls(
            name=name,
            kind=kind,
            failing=f,
            passing=p,
            changes=tuple(change_lines(kind, f, p)),
            module=meta.get("module"),
            attrs=tuple(meta.get("attrs") or ()),
            module_file=meta.get("module_file"),
            shadowed=tuple(
                sorted({s for c in (failing, passing) if c for s in c.get("shadowed") or ()})
            ),
            path=meta.get("path"),
            var=meta.get("var"),
            fixture=meta.get("fixture"),
            scope=meta.get("scope"),
            value_module=typed.get("value_module"),
            value_class=typed.get("value_class"),
            value_file=typed.get("value_file"),
            owner_module=meta.get("owner_module"),
            owner_class=meta.get("owner_class"),
            owner_file=meta.get("owner_file"),
            rebound=rebound_differs(failing, passing) and bool((failing or {}).get(REBOUND_KEY)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "changes": list(self.changes),
            "failing": self.failing.to_json(),
            "passing": self.passing.to_json(),
        }


def fixture_views(
    failing: Optional[dict[str, Any]], passing: Optional[dict[str, Any]]
) -> tuple[ValueView, ValueView]:
    """Views of both captures; a fresh fixture value not set up in one capture takes the
    fresh content the other capture recorded (what its fixture function returns)."""
    views = []
    for this, other in ((failing, passing), (passing, failing)):
        view = ValueView.from_capture(this)
        if this and this.get("fresh") and this.get("desc") is None and other:
            fresh = other.get("fresh_desc", other.get("desc") if other.get("fresh") else None)
            if fresh is not None:
                literal = other.get("fresh_literal", other.get("literal"))
                view = ValueView(True, fresh, literal, str(other.get("type", "")))
        views.append(view)
    return views[0], views[1]


@dataclass
class DebugResult:
    """What the Debugger learnt about one OD test."""

    test: str
    kind: str  # victim | brittle
    failing_order: list[str]
    passing_order: list[str]
    captured: int = 0
    differing: list[RootInfo] = field(default_factory=list)
    polluted: list[str] = field(default_factory=list)  # roots that alone explain it
    together: list[str] = field(default_factory=list)  # a minimal set, when none alone does
    unrestorable: dict[str, str] = field(default_factory=dict)
    test_module: Optional[str] = None  # the module name the OD test's file imports as
    runs: int = 0
    failing_outcome: str = ""  # the test's outcome in its failing order ("error": set-up)
    notes: list[str] = field(default_factory=list)

    def root(self, name: str) -> RootInfo:
        for r in self.differing:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def culprits(self) -> list[RootInfo]:
        """The polluted (needed, for a brittle) roots: each alone, else the minimal set."""
        return [self.root(n) for n in (self.polluted or self.together)]

    @property
    def found(self) -> bool:
        return bool(self.polluted or self.together)

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "kind": self.kind,
            "failing_order": self.failing_order,
            "passing_order": self.passing_order,
            "captured": self.captured,
            "differing": [r.to_json() for r in self.differing],
            "polluted": self.polluted,
            "together": self.together,
            "unrestorable": self.unrestorable,
            "runs": self.runs,
            "notes": self.notes,
        }
