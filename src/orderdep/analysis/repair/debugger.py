"""ODRepair's Debugger (003 §3.1, Figure 2): which shared state makes an OD test fail.

For a victim ``t`` with polluter ``p``:

1. capture every root right before ``t`` in the failing order ``[p, t]``;
2. capture them right before ``t`` in the passing order. The paper runs ``[t, t]``
   because the JVM loads classes lazily; pytest has imported every test module (and what
   it imports) at collection, so ``[t]`` alone sees the same roots, and modules the
   failing order imported later are imported at the capture point (``state_capture_eager``);
3. diff the two captures;
4. for each differing root, run the failing order again and put that root back to its
   passing value right before ``t``; a root whose restore makes ``t`` pass is *polluted*.

Python values are restored in the child itself: the value before ``t`` in ``[t]`` is the
value the root had at the start of any order (every order starts from the same
interpreter state), so the probe snapshots it at position 0 and writes it back later,
in place when the object was mutated (003 §3.1.1 reuses live objects for the same
reason). Nothing is serialised across processes.

For a brittle the roles swap: the passing order is ``[s, t]`` with a state-setter ``s``,
the failing order ``[t]``, and a root is *needed* when putting it back to its initial
value right before ``t`` in ``[s, t]`` makes ``t`` fail.

When no root alone explains the outcome, all differing roots are restored together and,
if that works, :func:`~orderdep.core.ddmin.ddmin` shrinks them to a minimal set.

Besides the roots of :mod:`orderdep.analysis.state`, the probe captures two kinds the JVM
has no counterpart for (:mod:`.probe_roots`): each entry of ``sys.modules`` that is not
library code (restored by removing it when the passing order did not have it), and the
cached value of every session-, package-, module- and class-scoped fixture of the
project (compared with what its fixture function returned; restored to that content).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from orderdep.core.ddmin import DDMinPreconditionError, ddmin
from orderdep.core.odmodel import Kind
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.report import ODFinding
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import OrderdepError, UsageError

PROBE_MODULE = "orderdep.analysis.repair.debug_probe"
MAX_RESTORES = 60
# Restore experiments try likely culprits first (003 §3.1 looks at static fields).
KIND_ORDER = (
    "global", "classattr", "fixture", "cache", "env", "file", "cwd", "syspath", "sysmodule",
    "logging", "warnings", "other",
)  # fmt: skip

Progress = Callable[[str], None]


class DebugError(OrderdepError):
    """The OD test does not behave as its orders say, so there is nothing to debug."""


@dataclass(frozen=True)
class ValueView:
    """A root's value in one capture: present or not, its description and literal."""

    present: bool
    desc: Any = None
    literal: Optional[str] = None
    type: str = ""

    @classmethod
    def from_capture(cls, data: Optional[dict[str, Any]]) -> ValueView:
        if not data or not data.get("present"):
            return cls(False)
        return cls(True, data.get("desc"), data.get("literal"), str(data.get("type", "")))

    def to_json(self) -> dict[str, Any]:
        return {"present": self.present, "type": self.type, "literal": self.literal}


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
    path: Optional[str] = None  # file roots: relative path ("$TMP/..." for the temp dir)
    var: Optional[str] = None  # env roots
    aliases: tuple[str, ...] = ()  # other roots naming the same object
    fixture: Optional[str] = None  # fixture roots: the fixture's name
    scope: Optional[str] = None  # fixture roots: session, package, module or class
    value_module: Optional[str] = None  # fixture roots: where the value's class lives
    value_class: Optional[str] = None
    value_file: Optional[str] = None

    @classmethod
    def from_captures(
        cls, name: str, failing: Optional[dict[str, Any]], passing: Optional[dict[str, Any]]
    ) -> RootInfo:
        meta = failing or passing or {}
        f, p = _fixture_views(failing, passing)
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
            path=meta.get("path"),
            var=meta.get("var"),
            fixture=meta.get("fixture"),
            scope=meta.get("scope"),
            value_module=typed.get("value_module"),
            value_class=typed.get("value_class"),
            value_file=typed.get("value_file"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "changes": list(self.changes),
            "failing": self.failing.to_json(),
            "passing": self.passing.to_json(),
        }


def _fixture_views(
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


# -- readable diffs of two value descriptions (see debug_probe.describe) ----------------
MAX_LISTED = 3
MAX_LINES = 4


def _render(desc: Any, limit: int = 60) -> str:
    """A short Python-like rendering of a description node."""
    text = _render_full(desc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render_full(desc: Any) -> str:
    if not isinstance(desc, list) or len(desc) != 3:
        return repr(desc)
    tag, tname, payload = desc
    if tag == "dict":
        return "{" + ", ".join(f"{k}: {_render_full(v)}" for k, v in payload) + "}"
    if tag == "seq":
        inner = ", ".join(_render_full(v) for v in payload)
        if tname == "tuple":
            return f"({inner},)" if len(payload) == 1 else f"({inner})"
        return f"[{inner}]"
    if tag == "set":
        return "{" + ", ".join(payload) + "}" if payload else "set()"
    if tag == "obj":
        return f"{tname}(" + ", ".join(f"{k}={_render_full(v)}" for k, v in payload) + ")"
    if tag in ("cycle",):
        return f"<cycle {tname}>"
    return str(payload)


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    more = len(items) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _diff(f: Any, p: Any, path: str, out: list[tuple[str, str]]) -> None:
    """(sub-path, phrase) pairs saying how failing ``f`` differs from passing ``p``."""
    if f == p:
        return
    same_shape = (
        isinstance(f, list)
        and isinstance(p, list)
        and len(f) == len(p) == 3
        and f[0] == p[0]
        and f[1] == p[1]
    )
    if not same_shape or f[0] not in ("dict", "seq", "set", "obj"):
        out.append((path, f"is {_render(f)} (passing: {_render(p)})"))
        return
    tag = f[0]
    if tag in ("dict", "obj"):
        fd, pd = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
        word = "key" if tag == "dict" else "attribute"
        extra = [k for k in fd if k not in pd]
        missing = [k for k in pd if k not in fd]
        if extra:
            out.append((path, f"has extra {word}{'s' if len(extra) > 1 else ''} {_listing(extra)}"))
        if missing:
            out.append((path, f"lacks {word}{'s' if len(missing) > 1 else ''} {_listing(missing)}"))
        for k in fd:
            if k in pd and fd[k] != pd[k]:
                sub = f"{path}[{k}]" if tag == "dict" else f"{path}.{k}"
                _diff(fd[k], pd[k], sub, out)
        return
    if tag == "set":
        fs, ps = list(f[2]), list(p[2])
        extra = [x for x in fs if x not in ps]
        missing = [x for x in ps if x not in fs]
        if extra:
            out.append(
                (path, f"has extra element{'s' if len(extra) > 1 else ''} {_listing(extra)}")
            )
        if missing:
            out.append(
                (path, f"lacks element{'s' if len(missing) > 1 else ''} {_listing(missing)}")
            )
        return
    fl, pl = f[2], p[2]
    if len(fl) > len(pl) and fl[: len(pl)] == pl:
        items = [_render(x) for x in fl[len(pl) :]]
        out.append((path, f"has {_plural(len(items), 'extra item')} at the end: {_listing(items)}"))
    elif len(fl) < len(pl) and pl[: len(fl)] == fl:
        items = [_render(x) for x in pl[len(fl) :]]
        out.append((path, f"lacks its last {_plural(len(items), 'item')}: {_listing(items)}"))
    elif len(fl) == len(pl):
        for i, (a, b) in enumerate(zip(fl, pl)):
            _diff(a, b, f"{path}[{i}]", out)
    else:
        out.append((path, f"is {_render(f)} (passing: {_render(p)})"))


def change_lines(kind: str, failing: ValueView, passing: ValueView) -> list[str]:
    """Readable phrases for how a root's failing value differs from its passing value.

    Each phrase starts with the sub-path it is about (``['job_7']``, ``.count``, ``[2]``)
    when it concerns part of the value, e.g. ``has extra key 'job_7'``.
    """
    if failing.present and not passing.present:
        lit = failing.literal or _render(failing.desc)
        return [
            {
                "env": f"is set to {lit} (unset in the passing order)",
                "file": "was created (absent in the passing order)",
                "sysmodule": f"holds {_render(failing.desc)} (absent in the passing order)",
            }.get(kind, f"is {_render(failing.desc)} (absent in the passing order)")
        ]
    if passing.present and not failing.present:
        lit = passing.literal or _render(passing.desc)
        return [
            {
                "env": f"is unset (passing: {lit})",
                "file": "was deleted (present in the passing order)",
            }.get(kind, f"is absent (passing: {_render(passing.desc)})")
        ]
    if kind == "file":
        return [f"content differs ({_render(failing.desc)}; passing: {_render(passing.desc)})"]
    if kind == "cache":
        return [f"holds {failing.desc[2]} cached result(s) (passing: {passing.desc[2]})"]
    pairs: list[tuple[str, str]] = []
    _diff(failing.desc, passing.desc, "", pairs)
    if failing.type != passing.type and not pairs:
        pairs.append(("", f"is a {failing.type} (passing: a {passing.type})"))
    lines = [f"{sub}: {phrase}" if sub else phrase for sub, phrase in pairs]
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], f"and {len(lines) - MAX_LINES + 1} more difference(s)"]
    return lines


class _Runs:
    def __init__(self, executor: Executor, test: str, progress: Optional[Progress]) -> None:
        self.executor, self.test = executor, test
        self.progress = progress or (lambda message: None)
        self.count = 0

    def run(self, order: Sequence[str], options: dict[str, Any]) -> tuple[Outcome, OrderResult]:
        self.count += 1
        probe = ProbeSpec(PROBE_MODULE, {"at": len(order) - 1, **options})
        result = self.executor.run(list(order), probe=probe)
        error = result.probe.get("error")
        if error:
            raise DebugError(f"the debug probe failed in the test process:\n{error}")
        return result.outcome_of(self.test), result


def _modules(captured: dict[str, Any]) -> set[str]:
    return {str(v["module"]) for v in captured.values() if v.get("module")}


def _differs(f: Optional[dict[str, Any]], p: Optional[dict[str, Any]], same_salt: bool) -> bool:
    """Whether a root differs between the captures.

    Fingerprints (deep, but salted per process for strings) decide when both captures
    come from children of one fork server; the bounded descriptions decide otherwise.
    """
    fixture_values = f is not None and p is not None and "fresh" in f and "fresh" in p
    if fixture_values and f and p and (f["fresh"] or p["fresh"]):  # fresh: no description
        return bool(f["fresh"]) != bool(p["fresh"])
    fv, pv = ValueView.from_capture(f), ValueView.from_capture(p)
    if fv.present != pv.present:
        return True
    if not fv.present:
        return False
    if fv.desc != pv.desc or fv.type != pv.type:
        return True
    return same_salt and f is not None and p is not None and f.get("fp") != p.get("fp")


def _testish(root: RootInfo) -> bool:
    base = (root.module_file or "").rsplit("/", 1)[-1]
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


def _merge_aliases(roots: list[RootInfo], captured: dict[str, Any]) -> list[RootInfo]:
    """One root per object: ``from app.registry import _ENTRIES`` in a test module makes
    ``test_mod._ENTRIES`` another name of ``app.registry._ENTRIES``; the defining module's
    name is kept (restoring one restores both), the others become its aliases."""
    groups: dict[int, list[RootInfo]] = {}
    for r in roots:
        ident = (captured.get(r.name) or {}).get("ident")
        if ident is not None:
            groups.setdefault(int(ident), []).append(r)
    drop: set[str] = set()
    keep: dict[str, RootInfo] = {}
    for group in groups.values():
        if len(group) > 1:
            best = min(group, key=lambda r: (_testish(r), len(r.name), r.name))
            others = tuple(r.name for r in group if r is not best)
            keep[best.name] = dataclasses.replace(best, aliases=others)
            drop.update(others)
    return [keep.get(r.name, r) for r in roots if r.name not in drop]


def debug(
    executor: Executor,
    test: str,
    *,
    kind: str,
    failing_order: Sequence[str],
    passing_order: Sequence[str],
    max_restores: int = MAX_RESTORES,
    progress: Optional[Progress] = None,
) -> DebugResult:
    """Find the roots that make ``test`` fail in ``failing_order`` (Figure 2)."""
    for name, order in (("failing", failing_order), ("passing", passing_order)):
        if not order or order[-1] != test:
            raise UsageError(f"the {name} order must end with {test!r}, got {list(order)!r}")
    if kind not in ("victim", "brittle"):
        raise UsageError(f"kind must be 'victim' or 'brittle', got {kind!r}")
    runs = _Runs(executor, test, progress)
    out = DebugResult(test, kind, list(failing_order), list(passing_order))

    runs.progress("capturing state before the test in the failing order")
    f_outcome, f_res = runs.run(failing_order, {"mode": "capture"})
    runs.progress("capturing state before the test in the passing order")
    ensure = sorted(_modules(f_res.probe.get("roots", {})))
    p_outcome, p_res = runs.run(passing_order, {"mode": "capture", "ensure_modules": ensure})
    if not f_outcome.is_failure:
        raise DebugError(
            f"{test!r} {f_outcome.value} in its failing order {list(failing_order)!r}; the "
            "dependency did not reproduce. Re-run `orderdep classify --redo` on it."
        )
    if p_outcome.is_failure:
        p_outcome, _ = runs.run(passing_order, {"mode": "capture", "ensure_modules": []})
        raise DebugError(
            f"{test!r} {p_outcome.value} in its passing order {list(passing_order)!r}; it is "
            "not order-dependent there. Re-run `orderdep classify --redo` on it."
        )
    f_roots: dict[str, Any] = f_res.probe.get("roots", {})
    p_roots: dict[str, Any] = p_res.probe.get("roots", {})
    extra = sorted(_modules(p_roots) - _modules(f_roots))
    if extra:  # the passing order loaded modules the failing one did not: capture again
        _, f_res = runs.run(failing_order, {"mode": "capture", "ensure_modules": extra})
        f_roots = f_res.probe.get("roots", {})
    out.captured = len(f_roots)
    out.test_module = f_res.probe.get("test_module") or p_res.probe.get("test_module")
    names = sorted(set(f_roots) | set(p_roots))
    same_salt = f_res.probe.get("salt") == p_res.probe.get("salt")
    out.differing = [
        RootInfo.from_captures(n, f_roots.get(n), p_roots.get(n))
        for n in names
        if _differs(f_roots.get(n), p_roots.get(n), same_salt)
    ]
    out.differing = _merge_aliases(out.differing, f_roots)
    out.differing.sort(key=lambda r: KIND_ORDER.index(r.kind) if r.kind in KIND_ORDER else 99)
    if not out.differing:
        out.notes.append(
            "no captured root differs; the shared state may live outside the roots orderdep "
            "captures (e.g. C extensions, the stdlib, services, databases)"
        )
    _isolate(runs, out, max_restores)
    out.runs = runs.count
    return out


def _isolate(runs: _Runs, out: DebugResult, max_restores: int) -> None:
    """Restore roots one at a time (Figure 2, lines 20-24), then a minimal set."""
    # A victim is fixed by restoring in the failing order; a brittle breaks when its
    # setter's effect is undone in the passing order.
    order = out.failing_order if out.kind == "victim" else out.passing_order

    def effect(roots: Sequence[str]) -> bool:
        outcome, res = runs.run(order, {"mode": "restore", "roots": list(roots)})
        out.unrestorable.update(res.probe.get("failed", {}))
        return outcome.is_pass if out.kind == "victim" else outcome.is_failure

    candidates = [r.name for r in out.differing][:max_restores]
    if len(out.differing) > max_restores:
        out.notes.append(
            f"{len(out.differing)} roots differ; tried restoring the first {max_restores}"
        )
    for name in candidates:
        runs.progress(f"restoring {name}")
        if effect([name]):
            out.polluted.append(name)
    if out.polluted or len(candidates) < 2:
        return
    runs.progress("restoring all differing roots together")
    try:
        out.together = ddmin(candidates, effect)
    except DDMinPreconditionError:
        out.notes.append("restoring every differing root together does not change the outcome")


def orders_for(
    finding: ODFinding, polluter: Optional[Sequence[str]] = None
) -> tuple[str, list[str], list[str]]:
    """(kind, failing order, passing order) to debug ``finding`` with.

    ``polluter`` (a polluter, or a state-setter for a brittle; several ids form a group)
    overrides the report's; otherwise its first polluter (state-setter), then its first
    group, then the recorded order cut at the test.
    """
    test = finding.test
    kind = finding.kind
    if kind is None:
        raise UsageError(
            f"OD test {test!r} is not classified (victim or brittle); run `orderdep classify` "
            "first, or pass --polluter."
        )
    chosen = list(polluter or [])
    if kind == "victim":
        if not chosen:
            chosen = (
                [finding.polluters[0]]
                if finding.polluters
                else list(finding.polluter_groups[0])
                if finding.polluter_groups
                else _prefix(finding.failing_order, test)
            )
        if not chosen:
            raise UsageError(f"no polluter known for victim {test!r}; pass --polluter ID")
        return kind, [*chosen, test], [test]
    if not chosen:
        chosen = (
            [finding.state_setters[0]]
            if finding.state_setters
            else list(finding.state_setter_groups[0])
            if finding.state_setter_groups
            else _prefix(finding.passing_order, test)
        )
    if not chosen:
        raise UsageError(f"no state-setter known for brittle {test!r}; pass --polluter ID")
    return kind, [test], [*chosen, test]


def _prefix(order: Sequence[str], test: str) -> list[str]:
    return list(order[: order.index(test)]) if test in order else []


def finding_for(
    executor: Executor,
    test: str,
    polluters: Sequence[str] = (),
    finding: Optional[ODFinding] = None,
) -> ODFinding:
    """The finding to debug or fix ``test`` with.

    ``polluters`` (a polluter, a state-setter for a brittle, several for a group) replace
    those of the report's ``finding``; without a classified finding the kind comes from a
    run alone, and without polluters the orders come from :func:`infer_orders`.
    """
    if finding is not None and finding.kind is not None and not polluters:
        return finding
    if not polluters:
        kind, failing, passing = infer_orders(executor, test)
        return ODFinding(test, kind, failing_order=failing, passing_order=passing)
    if finding is not None and finding.kind is not None:
        out = copy.deepcopy(finding)
    else:
        alone = executor.run([test]).outcome_of(test)
        out = ODFinding(test, "victim" if alone.is_pass else "brittle")
    group = list(polluters)
    if out.kind == "victim":
        out.polluters, out.polluter_groups = (group, []) if len(group) == 1 else ([], [group])
        out.failing_order = [*group, test]
    else:
        out.state_setters, out.state_setter_groups = (
            (group, []) if len(group) == 1 else ([], [group])
        )
        out.passing_order = [*group, test]
    return out


def infer_orders(executor: Executor, test: str) -> tuple[Kind, list[str], list[str]]:
    """Kind and orders of ``test`` from the original order and a run alone (no report).

    A test that passes alone and fails in the original order is a victim of what runs
    before it there; one that fails alone and passes there is a brittle.
    """
    ids = executor.suite.ids
    if test not in ids:
        raise UsageError(f"{test!r} is not in the collected suite; see `orderdep collect`")
    prefix = ids[: ids.index(test)]
    alone = executor.run([test]).outcome_of(test)
    in_suite = executor.run([*prefix, test]).outcome_of(test) if prefix else alone
    if alone.is_pass and in_suite.is_failure:
        return "victim", [*prefix, test], [test]
    if alone.is_failure and in_suite.is_pass:
        return "brittle", [test], [*prefix, test]
    raise UsageError(
        f"{test!r} {alone.value} alone and {in_suite.value} after the tests before it; "
        "it does not look order-dependent there. Pass --polluter ID or --report FILE."
    )
