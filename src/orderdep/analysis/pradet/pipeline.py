"""PRADET end to end (paper 001, Figure 1): collect, build the graph, refine, report.

1. **Collect** (§III-A, :mod:`.collection`): one run of the reference order (default:
   the suite's original order) under the state probe records, per test, the roots it
   wrote and read. With ``also_reverse`` the reversed order is collected too: a data
   dependency only points from a reader back to an earlier writer, so a victim that runs
   before its polluter in the reference order (the usual case when the original order
   passes) leaves an edge only in the reversed run (the paper's http-request case,
   §VI-B). ``extra_orders`` adds seeded random class-compatible orders.
2. **Tests whose outcome differs between the collected runs first**
   (:mod:`.early`): each one's dependees in the run to be explained are tried right
   before it, alone, within half of the budget left; what shows the relation is
   evidence at once and not refined (a counter that many tests advance would otherwise
   cost refinement the quadratic number of edges among its writers first).
3. **Graph and refine** (§III-B): each collection's data dependencies are refined by
   :func:`~orderdep.analysis.pradet.refine.refine` against that very run's outcomes.
   A reader depends on *every* earlier writer of a root it read, not only the last one
   (:func:`~orderdep.analysis.pradet.datadeps.data_dependencies` with ``all_writers``):
   a root is a whole module global, so two tests adding different keys to one dict both
   write it, and the later write does not replace the earlier one the way a write to a
   Java field does. A pair an earlier collection's refinement tested, with the
   dependent's outcome the same in both runs, is not tested again (manifest ones stay as
   constraints).
4. **Confirm** (:mod:`.confirm`; a check the paper does by hand, §VI-B "we verified that
   all the reported dependencies can occur"): each manifest dependency is run again
   ``confirm_runs`` times, first in the shortest orders that can show it (the dependent
   alone, and the dependee right before it), else as refinement's schedule without and
   with the dependee. One that does not reproduce is dropped.
5. **Beyond one edge at a time** (both reuse the confirmation's runs of tests alone):
   *alternatives*: when either of two dependees suffices, moving one leaves the other and
   refinement removes both edges, so the removed dependees of a test whose outcome alone
   differs from the collected run are tried alone; *search*: a conditional dependency
   (below) points at a cleaner, and delta debugging over its schedule finds the polluter.
   What they find is re-run like refinement's finds.
6. **Non-determinism**: every dependent runs alone ``alone_runs`` times, one more per
   doubling of the candidate dependencies checked for it; a test whose outcome changed
   within one and the same order is ND (``flaky``): its dependencies are dropped (a test
   failing at random shows chance "dependencies", more of them the more candidates are
   tried). One failing half of the time still slips through about once in
   ``2**(alone_runs - 1)`` times it gets that far; ``orderdep classify`` (10 runs alone)
   re-checks the findings.
7. **Report** (:mod:`.findings`): manifest dependencies become OD findings (004's
   vocabulary: a brittle with its state-setters, a victim with its polluters and
   cleaners) with their failing and passing orders, merged into an existing report or a
   new one; the report's ``"pradet"`` key keeps the data dependencies, the roots they
   flow through and the cost; flaky dependents join its ND tests.

A dependency whose dependee alone shows it (``alone``) is an alternative of its own
(``state_setters``/``polluters``); several that only show it together become one group.
If the dependent's behaviour alone contradicts the kind (a "brittle" that passes alone:
the dependee was a cleaner of some polluter in the schedule), the dependency is real but
*conditional*: it is kept under ``"pradet"`` and not turned into a finding.

Limits (besides the paper's §V), in the reference and reversed orders alone: a
state-setter whose write changes nothing in the collected run (an earlier test did the
same) leaves no data dependency; a victim whose cleaner runs between it and its
polluters in both orders (e.g. between the two members of a polluter group), so that
moving any one test changes nothing, is not seen. Random extra orders find both when
one of them puts the hidden test first (the later setter) or the polluters together
(docs/benchmarks.md, section PRADET, measures how often, and the cost).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

import networkx as nx

from orderdep.analysis.pradet import confirm as checking
from orderdep.analysis.pradet import early
from orderdep.analysis.pradet.collection import (
    COLLECT_COMMAND,
    REFERENCE,
    REVERSED,
    SCHEMA,
    Collected,
    Collection,
    collect,
    load_collected,
    save_collected,
)
from orderdep.analysis.pradet.evidence import Evidence, PradetResult
from orderdep.analysis.pradet.findings import findings, merge_report, summary_json
from orderdep.analysis.pradet.manifest import RefineResult
from orderdep.analysis.pradet.refine import STATE_PROBE, ProgressCallback, refine
from orderdep.engine.executor import Executor
from orderdep.errors import UsageError

__all__ = [
    "COLLECT_COMMAND",
    "DEFAULT_ALONE_RUNS",
    "REFERENCE",
    "REVERSED",
    "SCHEMA",
    "STATE_PROBE",
    "Collected",
    "Collection",
    "Evidence",
    "Notice",
    "PradetResult",
    "collect",
    "findings",
    "load_collected",
    "merge_report",
    "refine_collected",
    "run_pradet",
    "save_collected",
    "summary_json",
]

Notice = Callable[[str], None]
DEFAULT_ALONE_RUNS = 5  # runs alone of a dependent with one candidate (see confirm.screen)
#: Share of the time left when refinement starts that it leaves to the checks after it
#: (confirmation, the non-determinism screen, verification), which make its findings
#: true and run whatever the budget: without it they ran past the budget's end.
CHECKS_RESERVE = 0.1


def refine_collected(
    executor: Executor,
    collected: Collected,
    *,
    jobs: int = 1,
    confirm_runs: int = 1,
    alternatives: bool = True,
    search: bool = True,
    alone_runs: int = DEFAULT_ALONE_RUNS,
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Notice] = None,
    deadline: Optional[float] = None,
    batch: bool = True,
) -> PradetResult:
    """Refine every collection's data dependencies, then confirm the manifest ones.

    With ``confirm_runs`` > 0 each manifest dependency is confirmed that many times; with
    ``alternatives`` removed dependencies of tests whose outcome alone differs from the
    collected run are tried alone (:func:`~.confirm.alternatives`); with ``search`` the polluters
    and state-setters behind conditional dependencies are searched (:func:`~.confirm.search`).
    Both need confirmation (they reuse its runs of each test alone). Every dependent
    then runs alone ``alone_runs`` times in all, and one whose outcome changes within
    an order is dropped as non-deterministic (``flaky``, :func:`~.confirm.screen`).

    Before refinement (with ``confirm_runs`` and ``alternatives``), the dependees of
    tests whose outcome differs between the collected runs are tried alone
    (:func:`~.early.dependees_first`), within half of the time left.

    ``deadline`` (a :func:`time.monotonic` time, the budget): refinement starts no
    schedule after :data:`CHECKS_RESERVE` of the time left remains (the data
    dependencies left are ``untested``), and alternatives and search are skipped then;
    what refinement found is still confirmed, in the time kept for it. ``batch=False``
    refines one data dependency per schedule (see :func:`refine`).
    """
    if alone_runs < 1:
        raise UsageError(f"alone_runs must be at least 1, got {alone_runs!r}")
    say = notice or (lambda message: None)
    start = time.perf_counter()
    result = PradetResult(collected=collected)
    refined: list[tuple[Collection, nx.DiGraph, RefineResult]] = []
    verdicts: Verdicts = {}
    checks = checking.Checks(executor, confirm_runs, jobs, result)
    if deadline is not None and confirm_runs > 0:
        deadline -= CHECKS_RESERVE * max(0.0, deadline - time.monotonic())
    if confirm_runs > 0 and alternatives and early.differing(collected):
        say("trying first the dependees of tests whose outcome differs between the runs")
        # at most half of what is left, so that refinement still gets its share
        now = time.monotonic()
        early.dependees_first(
            checks, result, verdicts, None if deadline is None else now + (deadline - now) / 2
        )
    for c in collected.collections:
        graph, keep = _untested(c, verdicts)
        say(f"refining {graph.number_of_edges()} data dependencies of the {c.source} order")
        found = refine(
            executor,
            graph,
            c.order,
            reference=c.reference(),
            jobs=jobs,
            on_progress=on_progress,
            source=c.source,
            keep=keep,
            deadline=deadline,
            batch=batch,
        )
        _remember(c, found, verdicts)
        refined.append((c, graph, found))
        result.refined.merge(found)
    if confirm_runs > 0:
        if result.refined.manifest:
            say(f"confirming {len(result.refined.manifest)} manifest dependencies")
            checking.confirm(checks, result, alone_runs)
        late = deadline is not None and time.monotonic() >= deadline
        if late and (alternatives or search):
            say("budget spent: skipping alternatives and search")
            alternatives = search = False
        if result.refined.untested:
            say(f"budget spent: {len(result.refined.untested)} data dependencies not tested")
        if alternatives:
            say("trying removed dependencies of tests that behave differently alone")
            checking.alternatives(checks, result, refined)
        if result.evidence:
            say(f"running each dependent test alone {alone_runs} times (non-determinism)")
            checking.drop_flaky(result, checking.screen(checks, result, alone_runs))
        if search and any(e.conditional for e in result.evidence):
            say("searching the polluters and state-setters behind conditional dependencies")
            checking.search(checks, result, {c.source: g for c, g, _ in refined})
        checking.verify(checks, result)
        checking.drop_flaky(result, checks.flaky())
    else:
        result.evidence = [Evidence(m) for m in result.refined.manifest]
    result.wall_seconds = time.perf_counter() - start
    return result


Verdicts = early.Verdicts


def _untested(c: Collection, verdicts: Verdicts) -> tuple[nx.DiGraph, set[tuple[str, str]]]:
    """``c``'s graph without the edges an earlier collection's refinement removed, and
    the edges it found manifest (kept as constraints, not tested again), for the same
    pair with the dependent's outcome the same as in ``c``'s run. With another outcome
    (a victim that fails only in this run: its cleaner was between in the others) the
    pair is tested again."""
    graph = c.graph().copy()  # refinement changes it; the collection keeps its own
    failed = {t: o.is_failure for t, o in zip(c.order, c.outcomes)}
    keep: set[tuple[str, str]] = set()
    drop: list[tuple[str, str]] = []
    for dependent, dependee in graph.edges:
        verdict = verdicts.get((dependent, dependee, failed[dependent]))
        if verdict is True:
            keep.add((dependent, dependee))
        elif verdict is False:
            drop.append((dependent, dependee))
    graph.remove_edges_from(drop)
    return graph, keep


def _remember(c: Collection, found: RefineResult, verdicts: Verdicts) -> None:
    failed = {t: o.is_failure for t, o in zip(c.order, c.outcomes)}
    for dependent, dependee in found.removed:
        verdicts.setdefault((dependent, dependee, failed[dependent]), False)
    for m in found.manifest:
        verdicts[(m.dependent, m.dependee, failed[m.dependent])] = True


def run_pradet(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    also_reverse: bool = True,
    jobs: int = 1,
    confirm_runs: int = 1,
    alternatives: bool = True,
    search: bool = True,
    alone_runs: int = DEFAULT_ALONE_RUNS,
    extra_orders: int = 0,
    seed: int = 0,
    probe_options: Optional[Mapping[str, Any]] = None,
    project: str = "",
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Notice] = None,
    budget_seconds: Optional[float] = None,
) -> PradetResult:
    """All of PRADET: :func:`collect` (with ``extra_orders`` random orders from ``seed``),
    then :func:`refine_collected`, whose deadline is ``budget_seconds`` from now."""
    start = time.perf_counter()
    deadline = None if budget_seconds is None else time.monotonic() + budget_seconds
    say = notice or (lambda message: None)
    runs = ["reference", *(["reversed"] if also_reverse else [])]
    runs += [f"{extra_orders} random"] if extra_orders else []
    named = " and ".join([", ".join(runs[:-1]), runs[-1]] if len(runs) > 1 else runs)
    say(f"collecting data dependencies ({named} order{'s' * (len(runs) > 1)})")
    collected = collect(
        executor,
        reference_order,
        also_reverse=also_reverse,
        probe_options=probe_options,
        project=project,
        jobs=jobs,
        extra_orders=extra_orders,
        seed=seed,
        deadline=deadline,
    )
    result = refine_collected(
        executor,
        collected,
        jobs=jobs,
        confirm_runs=confirm_runs,
        alternatives=alternatives,
        search=search,
        alone_runs=alone_runs,
        on_progress=on_progress,
        notice=notice,
        deadline=deadline,
    )
    result.wall_seconds = time.perf_counter() - start
    return result
