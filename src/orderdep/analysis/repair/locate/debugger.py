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
if that works, :func:`~orderdep.core.ddmin.ddmin` shrinks them to a minimal set. When
that fails too, objects changed in place are split into their attributes
(:mod:`.attribute_roots`), which are captured and restored the same way.

Besides the roots of :mod:`orderdep.analysis.state`, the probe captures two kinds the JVM
has no counterpart for (:mod:`.probe_roots`): each entry of ``sys.modules`` that is not
library code (restored by removing it when the passing order did not have it), and the
cached value of every session-, package-, module- and class-scoped fixture of the
project (compared with what its fixture function returned; restored to that content).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import Any, Callable, Optional

from orderdep.analysis.repair.locate.attribute_roots import attribute_roots
from orderdep.analysis.repair.locate.debug_orders import finding_for as finding_for
from orderdep.analysis.repair.locate.debug_orders import infer_orders as infer_orders
from orderdep.analysis.repair.locate.debug_orders import orders_for as orders_for
from orderdep.analysis.repair.locate.module_roots import fold_packages
from orderdep.analysis.repair.locate.rebound import defines, rebound_differs
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.locate.set_up_roots import after_set_up, one_sided
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.ddmin import DDMinPreconditionError, ddmin
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import OrderdepError, UsageError

PROBE_MODULE = "orderdep.analysis.repair.locate.debug_probe"
MAX_RESTORES = 60
MAX_DDMIN_RUNS = 120  # runs delta debugging may take to shrink the roots restored together
# Restore experiments try likely culprits first (003 §3.1 looks at static fields).
KIND_ORDER = (
    "global", "classattr", "fixture", "cache", "env", "file", "cwd", "syspath", "sysargv", "decimal", "setting",
    "sysmodule",
    "logging", "warnings", "other",
)  # fmt: skip

Progress = Callable[[str], None]


class DebugError(OrderdepError):
    """The OD test does not behave as its orders say, so there is nothing to debug."""


class NotReproduced(DebugError):
    """The OD test passes in its failing order under plain runs too: nothing to fix
    there (a change made since may have fixed it, or the finding is stale)."""


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
    if fv.desc != pv.desc or fv.type != pv.type or rebound_differs(f, p):
        return True
    return same_salt and f is not None and p is not None and f.get("fp") != p.get("fp")


def _library_on_one_side(f: Optional[dict[str, Any]], p: Optional[dict[str, Any]]) -> bool:
    """A library module's function captured in one order only: its module was imported
    there only (a lazy import), which replaces nothing."""
    one = f if p is None else p if f is None else None
    return one is not None and bool(one.get("library"))


# values a module was imported again with (functions, classes, modules) rarely are the
# state a test reads; data comes first
_CODE_TYPES = frozenset({"function", "type", "module", "builtin_function_or_method", "method"})


def restore_rank(root: RootInfo) -> tuple[int, int]:
    """Where ``root`` comes in the restore experiments: by kind (:data:`KIND_ORDER`), then
    data before code, so a module imported again does not push the data that changed out
    of the first :data:`MAX_RESTORES`."""
    kind = KIND_ORDER.index(root.kind) if root.kind in KIND_ORDER else len(KIND_ORDER)
    views = [v for v in (root.failing, root.passing) if v.present]
    code = bool(views) and all(v.importable or v.type in _CODE_TYPES for v in views)
    return kind, int(code)


def _testish(root: RootInfo) -> bool:
    base = (root.module_file or "").rsplit("/", 1)[-1]
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


def _merge_aliases(
    roots: list[RootInfo], captured: dict[str, Any], rebound: Collection[str] = ()
) -> list[RootInfo]:
    """One root per object: ``from app.registry import _ENTRIES`` in a test module makes
    ``test_mod._ENTRIES`` another name of ``app.registry._ENTRIES``; the defining module's
    name is kept (restoring one restores both), the others become its aliases. A name
    ``rebound`` (bound to another object since the order began, as a reload does) is
    kept first: restoring it binds the first object again, where a name bound only
    later has no first object to go back to; the other rebound names are restored with
    it."""
    groups: dict[int, list[RootInfo]] = {}
    for r in roots:
        ident = (captured.get(r.name) or {}).get("ident")
        if ident is not None:
            groups.setdefault(int(ident), []).append(r)
    drop: set[str] = set()
    keep: dict[str, RootInfo] = {}
    for group in groups.values():
        if len(group) > 1:
            best = min(
                group,
                key=lambda r: (
                    r.name not in rebound,
                    not defines(captured.get(r.name)),
                    _testish(r),
                    len(r.name),
                    r.name,
                ),
            )
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
        plain = executor.run(list(failing_order)).outcome_of(test)
        if plain.is_failure:  # the probe changed what it observes
            raise DebugError(
                f"{test!r} {plain.value} in its failing order {list(failing_order)!r} but "
                f"{f_outcome.value} with the debug probe; its state cannot be observed there"
            )
        raise NotReproduced(
            f"{test!r} {f_outcome.value} in its failing order {list(failing_order)!r}; the "
            "dependency did not reproduce: a change made since (a patch applied) may have "
            "fixed it, or the finding is stale (`orderdep classify --redo` classifies it again)"
        )
    if p_outcome.is_failure and ensure:
        # A lighter probe: importing the failing order's modules may be what breaks the
        # test (it asserts a module is not imported yet); capture without importing them.
        p_outcome, p_res = runs.run(passing_order, {"mode": "capture", "ensure_modules": []})
        if not p_outcome.is_failure:
            out.notes.append(
                "importing the modules the failing order imported makes the test fail in its "
                "passing order too; the passing order was captured without them, so their "
                "globals could not be compared"
            )
    if p_outcome.is_failure:
        plain = executor.run(list(passing_order)).outcome_of(test)
        if not plain.is_failure:
            raise DebugError(
                f"{test!r} {plain.value} in its passing order {list(passing_order)!r} but "
                f"{p_outcome.value} with the debug probe; its state cannot be observed there"
            )
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
    out.failing_outcome = f_outcome.value
    out.test_module = f_res.probe.get("test_module") or p_res.probe.get("test_module")
    names = sorted(set(f_roots) | set(p_roots))
    same_salt = f_res.probe.get("salt") == p_res.probe.get("salt")
    out.differing = [
        RootInfo.from_captures(n, f_roots.get(n), p_roots.get(n))
        for n in names
        if _differs(f_roots.get(n), p_roots.get(n), same_salt)
        and not _library_on_one_side(f_roots.get(n), p_roots.get(n))
    ]
    late = one_sided(f_roots, p_roots)
    made: dict[str, RootInfo] = {}
    if late:  # made by a set-up: compared as the test's set-ups leave them
        runs.progress(f"capturing {len(late)} root(s) after the test's set-ups")
        made = after_set_up(runs.run, (failing_order, passing_order), late, ensure, _differs)
        out.differing = [made.get(r.name, r) for r in out.differing]
        out.notes += [
            f"{name} is made by a set-up (present before the test in one order only): "
            "compared as the test's set-ups leave it"
            for name in made
        ]
    # a global the failing order bound to another object comes first: what a reload does
    rebound = {n for n in names if rebound_differs(f_roots.get(n), p_roots.get(n))}
    out.differing = _merge_aliases(out.differing, f_roots, rebound)
    out.differing.sort(key=lambda r: (rebound.isdisjoint((r.name, *r.aliases)), *restore_rank(r)))
    together = {r.name: tuple(a for a in r.aliases if a in rebound) for r in out.differing}
    out.differing = fold_packages(out.differing)
    if not out.differing:
        out.notes.append(
            "no captured root differs; the shared state may live outside the roots orderdep "
            "captures (e.g. C extensions, the stdlib, services, databases)"
        )
    _isolate(runs, out, out.differing, max_restores, together)
    if not out.found:
        _split_objects(runs, out, ensure, max_restores)
    elif made:
        _split_made(runs, out, [r for r in out.culprits if r.name in made], ensure, max_restores)
    out.runs = runs.count
    return out


def _split_objects(runs: _Runs, out: DebugResult, ensure: list[str], max_restores: int) -> None:
    """Objects changed in place, their attributes captured and restored one at a time
    (:mod:`.attribute_roots`), when restoring the objects whole explained nothing."""
    names = attribute_roots(out.differing)
    if not names:
        return
    runs.progress(f"capturing {len(names)} attribute(s) of the objects that differ")
    options = {"mode": "capture", "ensure_modules": ensure, "attributes": names}
    _, f_res = runs.run(out.failing_order, options)
    _, p_res = runs.run(out.passing_order, options)
    f_roots: dict[str, Any] = f_res.probe.get("roots", {})
    p_roots: dict[str, Any] = p_res.probe.get("roots", {})
    same_salt = f_res.probe.get("salt") == p_res.probe.get("salt")
    parts = [
        RootInfo.from_captures(n, f_roots.get(n), p_roots.get(n))
        for n in names
        if _differs(f_roots.get(n), p_roots.get(n), same_salt)
        and not _library_on_one_side(f_roots.get(n), p_roots.get(n))
    ]
    if parts:
        out.differing += parts
        _isolate(runs, out, parts, max_restores)


def _split_made(
    runs: _Runs, out: DebugResult, roots: Sequence[RootInfo], ensure: list[str], max_restores: int
) -> None:
    """The attributes of an object a set-up made (:mod:`.set_up_roots`) that explain the
    failure, named before the object: other attributes of the class hold parts of it
    (``cls.Q_ = cls.ureg.Quantity``), so a copy in its place is not the same registry,
    while the attribute the polluter set can be put back alone."""
    names = attribute_roots(roots)
    if len(names) < 2:
        return
    runs.progress(f"capturing {len(names)} attribute(s) of the objects a set-up made")
    orders = (out.failing_order, out.passing_order)
    parts = list(after_set_up(runs.run, orders, names, ensure, _differs).values())
    if not parts:
        return
    found = DebugResult(out.test, out.kind, out.failing_order, out.passing_order)
    _isolate(runs, found, parts, max_restores)
    out.unrestorable.update(found.unrestorable)
    if found.polluted:
        out.differing += parts
        out.polluted = [*found.polluted, *(n for n in out.polluted if n not in found.polluted)]


class _TooManyRuns(Exception):
    """Delta debugging over the differing roots ran out of its runs."""


def _isolate(
    runs: _Runs,
    out: DebugResult,
    roots: Sequence[RootInfo],
    max_restores: int,
    together: Optional[dict[str, tuple[str, ...]]] = None,
) -> None:
    """Restore roots one at a time (Figure 2, lines 20-24), then a minimal set;
    ``together``: the other names restored with a root (see :func:`_merge_aliases`)."""
    together = together or {}
    # A victim is fixed by restoring in the failing order; a brittle breaks when its
    # setter's effect is undone in the passing order.
    order = out.failing_order if out.kind == "victim" else out.passing_order

    def effect(roots: Sequence[str]) -> bool:
        names = [n for root in roots for n in (root, *together.get(root, ()))]
        outcome, res = runs.run(order, {"mode": "restore", "roots": names})
        out.unrestorable.update(res.probe.get("failed", {}))
        return outcome.is_pass if out.kind == "victim" else outcome.is_failure

    names = [r.name for r in roots]
    candidates = names[:max_restores]
    for name in candidates:
        runs.progress(f"restoring {name}")
        if effect([name]):
            out.polluted.append(name)
    if out.polluted:
        return
    # none alone explains it: restore them together and halve the set down to a minimal
    # one (every root that differs, also those past the first MAX_RESTORES)
    pool = names if len(names) > max_restores else candidates
    if len(names) > max_restores:
        out.notes.append(
            f"{len(roots)} roots differ; restored the first {max_restores} one at a time, "
            "then all of them together"
        )
    if len(pool) < 2:
        return
    runs.progress(f"restoring all {len(pool)} differing roots together")
    calls = [0]

    def bounded(roots: Sequence[str]) -> bool:
        calls[0] += 1
        if calls[0] > MAX_DDMIN_RUNS:
            raise _TooManyRuns
        return effect(roots)

    try:
        found = ddmin(pool, bounded)
    except DDMinPreconditionError:
        out.notes.append("restoring every differing root together does not change the outcome")
        return
    except _TooManyRuns:
        out.notes.append(
            f"restoring the differing roots together explains it, but no minimal set was "
            f"found within {MAX_DDMIN_RUNS} runs"
        )
        return
    if len(found) == 1:
        out.polluted.extend(found)
    else:
        out.together = found
