"""Refining data dependencies into manifest dependencies (paper 001 §III-B, Figures 3-5).

Each data dependency ``t2 -> t1`` of the graph (``t2`` read what ``t1`` wrote) is tested on
its own: invert the edge, topologically sort the tests so that every *other* remaining
dependency still holds (dependees first, ties by reference position), and run that
schedule. If ``t2``'s outcome differs from the reference run, the dependency is *manifest*
and stays in the graph (as a constraint for later schedules); otherwise it is removed.

* **Source-first selection** (Figure 5): edges of the test that ran latest in the reference
  order go first, and among them the edge to the latest dependee, so that a test's
  other preconditions are tested (and kept or dropped) before the ones they could mask.
* **Deferred edges** (Figure 4): an edge whose inversion closes a cycle cannot be
  scheduled; it waits until other edges are removed, and if it never becomes testable it
  is reported as untestable (no order can run ``t2`` before ``t1`` while keeping the
  manifest dependencies).
* **Irrelevant tests are skipped**: only the edge's weakly connected component runs, and
  only up to ``t2`` (tests after it cannot change its outcome).
* **Group testing** (:mod:`.grouping`): in a component with many edges left, many
  edges are inverted in one schedule; the dependents whose outcome stays lose their
  edge, the others go back to the exact test below.
* **Many edges per schedule** (the paper's future work, :mod:`.schedules`): each round
  takes, in every component, the next edge and every later one that cannot interfere
  with it, and concatenates the schedules of independent components into orders of at
  most a reference run's length; with ``jobs > 1`` those orders go to the engine in one
  ``executor.run_many`` call. Rounds stop at a deadline (the budget); the edges left
  are reported ``untested``. ``batch=False`` tests one edge per schedule (the paper's
  way, for comparison).

Meaning of a manifest dependency (004's vocabulary): if ``t2`` passed in the reference
order and fails once ``t1`` is moved after it, ``t1`` is a *state-setter* of the
*brittle* ``t2``; if ``t2`` failed in the reference order and passes without ``t1``
before it, ``t1`` is a *polluter* of the *victim* ``t2``.

Limitation: edges only point from a reader back to an earlier writer, so a victim that
runs *before* its polluter in the reference order leaves no edge to test. Collecting a
second graph from the reversed order catches those (the paper's http-request case, §VI-B):
:func:`pradet` does that with ``also_reverse=True``.
"""

from __future__ import annotations

import time
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

import networkx as nx

from orderdep.analysis.pradet.datadeps import graph_from_probe
from orderdep.analysis.pradet.grouping import Grouping
from orderdep.analysis.pradet.manifest import ManifestDependency, RefineResult
from orderdep.analysis.pradet.schedules import Edge, Work, pack
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import UsageError

STATE_PROBE = "orderdep.analysis.state.probe"


@dataclass(frozen=True)
class RefineProgress:
    """Where a refinement stands (passed to ``on_progress`` after every schedule)."""

    tested: int
    total: int
    manifest: int
    untestable: int
    executions: int


ProgressCallback = Callable[[RefineProgress], None]


@dataclass(frozen=True)
class Limits:
    """How refinement runs: up to ``jobs`` orders at once, many edges per schedule where
    they cannot interfere (``batch``; one edge per schedule without), and no new round
    of schedules after ``deadline`` (a :func:`time.monotonic` time)."""

    jobs: int = 1
    batch: bool = True
    deadline: Optional[float] = None

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise UsageError(f"jobs must be at least 1, got {self.jobs!r}")


def _check_order(order: Sequence[str], graph: nx.DiGraph) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, test in enumerate(order):
        if test in index:
            raise UsageError(
                f"the reference order runs {test!r} twice (positions {index[test]} and {i}); "
                "PRADET needs each test once: pass the suite's order without repeats"
            )
        index[test] = i
    missing = [t for t in graph.nodes if t not in index]
    if missing:
        raise UsageError(
            f"{len(missing)} test(s) of the dependency graph are not in the reference order, "
            f"e.g. {missing[0]!r}; build the graph from a run of that same order"
        )
    return index


def refine(
    executor: Executor,
    graph: nx.DiGraph,
    reference_order: Sequence[str],
    *,
    reference: Optional[OrderResult] = None,
    jobs: int = 1,
    on_progress: Optional[ProgressCallback] = None,
    source: str = "reference",
    also_reverse: bool = False,
    probe_options: Optional[dict[str, Any]] = None,
    keep: Container[Edge] = (),
    batch: bool = True,
    deadline: Optional[float] = None,
) -> RefineResult:
    """Test every data dependency of ``graph`` (edges ``dependent -> dependee``).

    ``reference`` is the run of ``reference_order`` whose outcomes schedules are compared
    with (typically the probed collection run); without it the order is run once first.
    ``also_reverse`` then collects a second graph from the reversed order with the state
    probe (``probe_options``) and refines it too, to catch polluters that run after their
    victims in the reference order (findings marked ``source="reversed"``).

    Edges in ``keep`` are manifest already (another refinement tested the same pair): they
    constrain the schedules like manifest edges but are not tested again. ``batch`` and
    ``deadline``: see :class:`Limits`; edges left at the deadline are ``untested``.
    """
    limits = Limits(jobs, batch, deadline)
    result = _refine(executor, graph, reference_order, reference, limits, on_progress, source, keep)
    if also_reverse:
        backwards = list(reference_order)[::-1]
        result.merge(
            _collect_and_refine(executor, backwards, probe_options, limits, on_progress, "reversed")
        )
    return result


def _collect_and_refine(
    executor: Executor,
    order: list[str],
    probe_options: Optional[dict[str, Any]],
    limits: Limits,
    on_progress: Optional[ProgressCallback],
    source: str,
) -> RefineResult:
    """Run ``order`` under the state probe, then refine its graph against that very run."""
    run = executor.run(order, probe=ProbeSpec(STATE_PROBE, dict(probe_options or {})))
    graph = graph_from_probe(run.probe)
    found = _refine(executor, graph, order, run, limits, on_progress, source)
    found.executions += len(order)
    found.orders.insert(0, list(order))
    return found


def _refine(
    executor: Executor,
    graph: nx.DiGraph,
    reference_order: Sequence[str],
    reference: Optional[OrderResult],
    limits: Limits,
    on_progress: Optional[ProgressCallback],
    source: str,
    keep: Container[Edge] = (),
) -> RefineResult:
    order = list(reference_order)
    index = _check_order(order, graph)
    result = RefineResult(data_dependencies=graph.number_of_edges())
    if reference is None:
        reference = executor.run(order)
        result.executions += len(order)
        result.orders.append(order)
    expected: dict[str, Outcome] = {r.test: r.outcome for r in reference.results}
    position = {t: i for i, t in enumerate(reference.order)}

    work = Work(graph.edges, index)
    grouping = Grouping()
    tested = [e for e in graph.edges if e not in keep]
    priority = sorted(tested, key=lambda e: (-index[e[0]], -index[e[1]]))  # source-first
    total = len(priority)
    groups: list[tuple[set[str], list[Edge]]] = []
    collected: dict[str, int] = {}  # test -> its component in the collected graph
    for k, component in enumerate(work.components(work.succ)):
        collected.update((t, k) for t in component)
        edges = [e for e in priority if e[0] in component]
        if edges:
            groups.append((component, edges))

    def report() -> None:
        if on_progress is not None:
            tested = len(result.manifest) + len(result.removed)
            on_progress(
                RefineProgress(
                    tested, total, len(result.manifest), len(result.untestable), result.executions
                )
            )

    while groups:
        if limits.deadline is not None and time.monotonic() >= limits.deadline:
            result.untested += [e for _, edges in groups for e in edges]
            break
        planned: list[tuple[set[str], list[Edge], list[Edge], list[str], bool]] = []
        for component, edges in groups:
            flagged = any(e in grouping.flagged for e in edges)
            group = None
            if limits.batch and not flagged and grouping.wanted(edges):
                group = grouping.choose(work, component, edges)
            if group is not None:
                planned.append((component, edges, *group, True))
                continue
            chosen = work.independent(grouping.exact_first(edges), limits.batch)
            if not chosen:  # deferred edges that no removal here can free any more
                result.untestable.extend(edges)
                continue
            schedule = work.schedule(component, chosen)
            if schedule is None:  # cannot happen for independent edges; test one alone
                chosen = chosen[:1]
                schedule = work.schedule(component, chosen)
                assert schedule is not None
            planned.append((component, edges, chosen, schedule, False))
        if not planned:
            break
        sizes = [len(p[3]) for p in planned]
        keys = [collected[p[3][0]] for p in planned]
        bins = (
            pack(sizes, keys, len(order), limits.jobs)
            if limits.batch
            else [[i] for i in range(len(sizes))]
        )
        runs = _run(executor, [[t for i in b for t in planned[i][3]] for b in bins], limits.jobs)
        run_of: dict[int, OrderResult] = {}
        for members, run in zip(bins, runs):
            result.executions += len(run.order)
            result.orders.append(list(run.order))
            run_of.update((i, run) for i in members)
        groups = []
        for i, (component, edges, chosen, schedule, grouped) in enumerate(planned):
            split = False
            changed: list[Edge] = []
            for edge in chosen:
                dependent, dependee = edge
                want = expected.get(dependent, Outcome.PASSED)
                if run_of[i].outcome_of(dependent).is_failure == want.is_failure:
                    edges.remove(edge)
                    work.remove(edge)
                    result.removed.append(edge)
                    split = True
                    continue
                if grouped:  # maybe manifest: the exact test decides
                    changed.append(edge)
                    continue
                edges.remove(edge)
                grouping.flagged.discard(edge)
                cut = order[: position.get(dependent, index[dependent]) + 1]
                shown = schedule[: schedule.index(dependent) + 1]
                brittle = not want.is_failure
                result.manifest.append(
                    ManifestDependency(
                        dependent=dependent,
                        dependee=dependee,
                        roots=list(graph.edges[edge].get("roots", ())),
                        kind="brittle" if brittle else "victim",
                        failing_order=shown if brittle else cut,
                        passing_order=cut if brittle else shown,
                        source=source,
                    )
                )
            if grouped:
                grouping.judged(changed, len(chosen) - len(changed))
            # a removal may split the component
            for part in work.components(component) if split else [component]:
                left = [e for e in edges if e[0] in part]
                if left:
                    groups.append((part, left))
            report()
        groups.sort(key=lambda g: min(index[t] for t in g[0]))
    result.untestable.sort(key=lambda e: (index[e[0]], index[e[1]]))
    report()
    return result


def _run(executor: Executor, orders: list[list[str]], jobs: int) -> list[OrderResult]:
    if jobs > 1 and len(orders) > 1:
        return executor.run_many(orders)
    return [executor.run(o) for o in orders]


def pradet(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    probe_options: Optional[dict[str, Any]] = None,
    also_reverse: bool = False,
    jobs: int = 1,
    on_progress: Optional[ProgressCallback] = None,
    batch: bool = True,
) -> RefineResult:
    """Collect data dependencies with the state probe and refine them (all of paper 001).

    Runs ``reference_order`` (default: the suite's order) once under the probe; that run is
    also the reference the schedules are compared with. With ``also_reverse`` the reversed
    order is collected and refined too, which finds polluters that run after their victims
    in the reference order.
    """
    limits = Limits(jobs, batch)
    order = list(reference_order) if reference_order is not None else executor.suite.ids
    result = _collect_and_refine(executor, order, probe_options, limits, on_progress, "reference")
    if also_reverse:
        result.merge(
            _collect_and_refine(
                executor, order[::-1], probe_options, limits, on_progress, "reversed"
            )
        )
    return result
