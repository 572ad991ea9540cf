"""Checking PRADET's manifest dependencies, and finding what one edge at a time misses.

* **Confirm** (a check the paper does by hand, §VI-B "we verified that all the reported
  dependencies can occur"): each manifest dependency is run again ``confirm_runs``
  times, first in the shortest orders that can show it (the dependent alone, and the
  dependee right before it), else as refinement's schedule without and with the
  dependee. One that does not reproduce is dropped as possibly non-deterministic
  (:func:`confirm`).
* **Alternatives**: when either of two dependees suffices, moving one leaves the other
  and refinement removes both edges, so the removed dependees of a test whose outcome
  alone differs from the collected run are tried alone (:func:`alternatives`).
* **Search**: a conditional dependency (the dependent alone contradicts its kind) points
  at a cleaner; delta debugging over its schedule finds the polluter (:func:`search`).
* **Non-determinism**: every dependent is run alone ``alone_runs`` times (plus one per
  doubling of the candidates checked for it), and a test whose outcome changes within
  one order is ND, its dependencies dropped (:func:`screen`); what alternatives and search found is re-run like refinement's finds
  (:func:`verify`).

All of them run orders through :class:`Checks`, which runs each distinct order once per
confirmation run and remembers the outcomes (the tests alone are shared).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Optional

import networkx as nx

from orderdep.analysis.pradet.collection import Collection
from orderdep.analysis.pradet.evidence import Evidence, PradetResult
from orderdep.analysis.pradet.manifest import ManifestDependency, RefineResult
from orderdep.core.ddmin import DDMinPreconditionError
from orderdep.core.prefix_search import GROUP_CAP, TooManyNeeded, minimal_prefix_subset
from orderdep.engine.executor import Executor

Order = tuple[str, ...]


class Checks:
    """Runs check orders (each distinct order ``runs`` times) and remembers the outcomes."""

    def __init__(self, executor: Executor, runs: int, jobs: int, result: PradetResult) -> None:
        self.executor, self.runs, self.jobs, self.result = executor, runs, jobs, result
        self.failed: dict[Order, list[bool]] = {}  # order -> did its last test fail, per run
        self.tries: dict[str, int] = {}  # dependent -> candidate dependencies checked

    def tried(self, dependent: str) -> None:
        """One more candidate dependency of ``dependent`` was checked (see :func:`screen`)."""
        self.tries[dependent] = self.tries.get(dependent, 0) + 1

    def run(self, orders: Iterable[Order]) -> int:
        """Run the orders not run yet; return the test executions spent."""
        return self._run([o for o in dict.fromkeys(orders) if o not in self.failed] * self.runs)

    def observe(self, orders: Iterable[Order], times: int) -> int:
        """Run each order until it has been observed ``times`` times; executions spent."""
        todo: list[Order] = []
        for order in dict.fromkeys(orders):
            todo += [order] * max(0, times - len(self.failed.get(order, ())))
        return self._run(todo)

    def _run(self, todo: list[Order]) -> int:
        if not todo:
            return 0
        plain = [list(o) for o in todo]
        if self.jobs > 1:
            results = self.executor.run_many(plain)
        else:
            results = [self.executor.run(o) for o in plain]
        for order, run in zip(todo, results):
            self.failed.setdefault(order, []).append(run.outcome_of(order[-1]).is_failure)
        self.result.check_orders += len(todo)
        return sum(len(o) for o in todo)

    def flaky(self) -> set[str]:
        """Tests whose outcome differed between runs of one and the same order (ND)."""
        return {order[-1] for order, seen in self.failed.items() if len(set(seen)) > 1}

    def fails(self, order: Order) -> bool:
        return all(self.failed[order])

    def passes(self, order: Order) -> bool:
        return not any(self.failed[order])

    def shows(self, failing: Order, passing: Order) -> bool:
        return self.fails(failing) and self.passes(passing)

    def alone_fits(self, test: str, kind: str) -> bool:
        """A victim passes alone, a brittle fails alone (004 §2)."""
        return self.passes((test,)) if kind == "victim" else self.fails((test,))


def pair_orders(dependent: str, dependee: str, kind: str) -> tuple[Order, Order]:
    """(failing, passing) with the dependee alone."""
    single, both = (dependent,), (dependee, dependent)
    return (both, single) if kind == "victim" else (single, both)


def schedule_orders(m: ManifestDependency, position: Mapping[str, int]) -> tuple[Order, Order]:
    """(failing, passing): refinement's schedule without the dependee, and with it put back
    where the collected run had it (before the first later test); they differ in it only."""
    without = tuple(m.failing_order if m.kind == "brittle" else m.passing_order)
    at = position.get(m.dependee, -1)
    cut = next((i for i, t in enumerate(without) if position.get(t, -1) > at), len(without) - 1)
    with_it = (*without[:cut], m.dependee, *without[cut:])
    return (with_it, without) if m.kind == "victim" else (without, with_it)


def confirm(checks: Checks, result: PradetResult, alone_runs: int = 0) -> None:
    """Confirm each manifest dependency: the pair orders first, else the schedule orders.

    With ``alone_runs``, the dependents are screened first (:func:`screen`): a test
    failing at random gets chance candidates from refinement, and confirming them costs
    more than running it alone a few times.
    """
    manifest = result.refined.manifest
    for m in manifest:
        checks.tried(m.dependent)
    if alone_runs:
        flaky = screen(checks, result, alone_runs, {m.dependent for m in manifest})
        result.flaky = sorted(set(result.flaky) | flaky)
        manifest = [m for m in manifest if m.dependent not in flaky]
    pairs = [pair_orders(m.dependent, m.dependee, m.kind) for m in manifest]
    result.confirm_executions += checks.run(o for p in pairs for o in p)
    later: list[int] = []
    for i, m in enumerate(manifest):
        failing, passing = pairs[i]
        if checks.alone_fits(m.dependent, m.kind) and checks.shows(failing, passing):
            shown = dataclasses.replace(m, failing_order=list(failing), passing_order=list(passing))
            result.evidence.append(Evidence(shown, alone=True, confirmed=True))
        else:
            later.append(i)
    positions = {
        c.source: {t: i for i, t in enumerate(c.order)} for c in result.collected.collections
    }
    schedules = {i: schedule_orders(manifest[i], positions[manifest[i].source]) for i in later}
    result.confirm_executions += checks.run(o for p in schedules.values() for o in p)
    for i in later:
        m = manifest[i]
        failing, passing = schedules[i]
        if not checks.shows(failing, passing):
            result.unconfirmed.append(m)
            continue
        shown = dataclasses.replace(m, failing_order=list(failing), passing_order=list(passing))
        conditional = not checks.alone_fits(m.dependent, m.kind)
        result.evidence.append(Evidence(shown, conditional=conditional, confirmed=True))


def alternatives(
    checks: Checks,
    result: PradetResult,
    refined: Sequence[tuple[Collection, nx.DiGraph, RefineResult]],
) -> None:
    """Dependees that suffice alone although refinement removed their edge.

    Refinement moves one dependee at a time; when two dependees each suffice (two
    polluters of one victim, two state-setters of one brittle), moving either leaves the
    other in place, the outcome does not change and both edges are removed. So every
    dependent whose outcome in the collected run differs from its outcome alone gets each
    removed dependee tried right before it, alone.
    """
    known = {(e.dependency.dependent, e.dependency.dependee) for e in result.evidence}
    known |= {(m.dependent, m.dependee) for m in result.unconfirmed}
    removed: dict[tuple[str, str], tuple[Collection, nx.DiGraph]] = {}
    for collection, graph, found in refined:
        for edge in found.removed:
            if edge not in known:
                removed.setdefault(edge, (collection, graph))
    result.alternative_executions += checks.run((t,) for t, _ in removed)
    tries: list[tuple[tuple[str, str], str, Order, Order]] = []
    for (dependent, dependee), (collection, _) in removed.items():
        reference = collection.outcomes[collection.order.index(dependent)]
        alone_failed = checks.fails((dependent,))
        if reference.is_failure == alone_failed or not (
            alone_failed or checks.passes((dependent,))
        ):
            continue  # same outcome alone (or not the same in every run): nothing to explain
        kind = "brittle" if alone_failed else "victim"
        failing, passing = pair_orders(dependent, dependee, kind)
        tries.append(((dependent, dependee), kind, failing, passing))
        checks.tried(dependent)
    result.alternative_executions += checks.run(o for _, _, f, p in tries for o in (f, p))
    for edge, kind, failing, passing in tries:
        if not checks.shows(failing, passing):
            continue
        collection, graph = removed[edge]
        dependency = ManifestDependency(
            dependent=edge[0],
            dependee=edge[1],
            roots=list(graph.edges[edge].get("roots", ())),
            kind="brittle" if kind == "brittle" else "victim",
            failing_order=list(failing),
            passing_order=list(passing),
            source=collection.source,
        )
        result.evidence.append(
            Evidence(dependency, alone=True, confirmed=True, found_by="alternatives")
        )


def search(
    checks: Checks,
    result: PradetResult,
    graphs: Mapping[str, nx.DiGraph],
) -> None:
    """The polluters (state-setters) behind each conditional dependency.

    A test that passes alone but fails once the dependee is moved after it (so "needs" the
    dependee) is a victim whose polluter runs earlier in that schedule and whose cleaner is
    the dependee; symmetrically, a test failing alone that passes once the dependee moves
    is a brittle whose state-setter is in the schedule. The prefix search
    (:func:`~orderdep.core.prefix_search.minimal_prefix_subset`: bisection, then delta
    debugging on what it kept, as iFixFlakies' minimiser, 004 §4.1) over the schedule
    finds a 1-minimal polluter (state-setter) set of at most
    :data:`~orderdep.core.prefix_search.GROUP_CAP` tests (an outcome that needs more
    together is left unexplained); when that is one test, every other test of the
    schedule is tried alone too, since any of several polluters would have done.
    """
    found = {(e.dependency.dependent, e.dependency.dependee) for e in result.manifest}
    for e in [e for e in result.evidence if e.conditional]:
        m = e.dependency
        victim = m.kind == "brittle"  # needs the dependee, yet passes alone: it was cleaned
        shown = tuple(m.failing_order if victim else m.passing_order)
        test = m.dependent

        def holds(sub: Sequence[str], test: str = test, victim: bool = victim) -> bool:
            order = (*sub, test)
            result.search_executions += checks.run([order])
            return checks.fails(order) if victim else checks.passes(order)

        try:
            culprits = minimal_prefix_subset(list(shown[:-1]), holds, cap=GROUP_CAP)
        except (DDMinPreconditionError, TooManyNeeded):  # answers changed; too many needed
            continue
        groups = [culprits]
        if len(culprits) == 1:
            others = [(t,) for t in shown[:-1] if t != culprits[0]]
            result.search_executions += checks.run((*o, test) for o in others)
            groups += [list(o) for o in others if holds(o)]
        for group in groups:
            cleaner: Optional[str] = None
            if victim:
                cleaned = (*group, m.dependee, test)
                result.search_executions += checks.run([cleaned])
                cleaner = m.dependee if checks.passes(cleaned) else None
            for culprit in group:
                if (test, culprit) not in found:
                    found.add((test, culprit))
                    result.evidence.append(
                        _searched(m, group, culprit, victim, cleaner, graphs.get(m.source))
                    )


def _searched(
    m: ManifestDependency,
    group: Sequence[str],
    culprit: str,
    victim: bool,
    cleaner: Optional[str],
    graph: Optional[nx.DiGraph],
) -> Evidence:
    edge = (m.dependent, culprit)
    roots = graph.edges[edge]["roots"] if graph is not None and graph.has_edge(*edge) else []
    with_them, alone = [*group, m.dependent], [m.dependent]
    dependency = ManifestDependency(
        dependent=m.dependent,
        dependee=culprit,
        roots=list(roots),
        kind="victim" if victim else "brittle",
        failing_order=with_them if victim else alone,
        passing_order=alone if victim else with_them,
        source=m.source,
    )
    return Evidence(
        dependency, alone=len(group) == 1, confirmed=True, found_by="search", cleaner=cleaner
    )


def screen(
    checks: Checks, result: PradetResult, alone_runs: int, tests: Optional[set[str]] = None
) -> set[str]:
    """Dependents that are not deterministic: ND tests, not order-dependent ones.

    Every test that has evidence runs alone (as classify does, 004 §4.1) until it has
    been seen ``alone_runs + ceil(log2(c))`` times, ``c`` being the candidate
    dependencies checked for it; a test whose outcome differed between runs of any one
    order is non-deterministic. A test failing at random half of the time gets evidence
    by chance from any candidate whose orders happen to fail and pass as wanted, the
    likelier the more candidates are tried: each doubling of them costs one more run
    alone to keep the chance that it slips through about ``2**-(alone_runs - 1)``.
    ``tests`` (default: the dependents with evidence) are screened; runs go in rounds,
    so an ND test usually stops after two or three.
    """
    if tests is None:
        tests = {e.dependency.dependent for e in result.evidence}
    want: dict[Order, int] = {}
    for test in sorted(tests):
        tries = max(1, checks.tries.get(test, 1))
        want[(test,)] = alone_runs + math.ceil(math.log2(tries))
    times = 1
    while want:
        flaky = checks.flaky()
        want = {o: n for o, n in want.items() if o[-1] not in flaky and n >= times}
        result.confirm_executions += checks.observe(want, times)
        times += 1
    return checks.flaky()


def verify(checks: Checks, result: PradetResult) -> None:
    """Re-run the orders of dependencies found by alternatives and search.

    Their first run found them, so, like refinement's finds, they are confirmed by
    ``checks.runs`` more runs of each order; one that does not reproduce is dropped.
    """
    keep: list[Evidence] = []
    for e in result.evidence:
        if e.found_by == "refinement":
            keep.append(e)
            continue
        m = e.dependency
        failing, passing = tuple(m.failing_order), tuple(m.passing_order)
        spent = checks.observe((failing, passing), checks.runs + 1)
        if e.found_by == "search":
            result.search_executions += spent
        else:
            result.alternative_executions += spent
        if checks.shows(failing, passing):
            keep.append(e)
        else:
            result.unconfirmed.append(m)
    result.evidence = keep


def drop_flaky(result: PradetResult, flaky: set[str]) -> None:
    """Forget the evidence of non-deterministic dependents; list them as flaky."""
    dropped = {e.dependency.dependent for e in result.evidence} & flaky
    if dropped:
        result.evidence = [e for e in result.evidence if e.dependency.dependent not in dropped]
        result.flaky = sorted(set(result.flaky) | dropped)
