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
* **Components are independent** (the paper's future work): each round takes the next
  edge of every component and, with ``jobs > 1``, runs those schedules in one
  ``executor.run_many`` call so the engine can run them in parallel. Results do not
  depend on ``jobs``.

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

import heapq
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional

import networkx as nx

from orderdep.analysis.pradet.datadeps import graph_from_probe
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import UsageError

STATE_PROBE = "orderdep.analysis.state.probe"
Kind = Literal["brittle", "victim"]
Edge = tuple[str, str]


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
            "data_dependencies": self.data_dependencies,
            "executions": self.executions,
            "orders_run": self.orders_run,
        }


@dataclass(frozen=True)
class RefineProgress:
    """Where a refinement stands (passed to ``on_progress`` after every schedule)."""

    tested: int
    total: int
    manifest: int
    untestable: int
    executions: int


ProgressCallback = Callable[[RefineProgress], None]


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


class _Work:
    """The graph being refined as plain adjacency sets (networkx copies cost too much here).

    ``succ[t]`` are the dependees of ``t`` (edges ``t -> d``), ``pred[t]`` its dependents.
    """

    def __init__(self, edges: Iterable[Edge], index: Mapping[str, int]) -> None:
        self.succ: dict[str, set[str]] = {}
        self.pred: dict[str, set[str]] = {}
        self.index = index
        for dependent, dependee in edges:
            self.succ.setdefault(dependent, set()).add(dependee)
            self.pred.setdefault(dependee, set()).add(dependent)
            self.succ.setdefault(dependee, set())
            self.pred.setdefault(dependent, set())

    def remove(self, edge: Edge) -> None:
        self.succ[edge[0]].discard(edge[1])
        self.pred[edge[1]].discard(edge[0])

    def components(self, nodes: Iterable[str]) -> list[set[str]]:
        """Weakly connected components of the graph restricted to ``nodes``, in order of
        their earliest test in the reference order."""
        left = set(nodes)
        out = []
        while left:
            start = left.pop()
            part = {start}
            stack = [start]
            while stack:
                t = stack.pop()
                for u in (*self.succ[t], *self.pred[t]):
                    if u in left:
                        left.discard(u)
                        part.add(u)
                        stack.append(u)
            out.append(part)
        out.sort(key=lambda c: min(self.index[t] for t in c))
        return out

    def inverts_into_cycle(self, edge: Edge) -> bool:
        """Whether another path leads from the dependent to the dependee (Figure 4)."""
        dependent, dependee = edge
        stack = [d for d in self.succ[dependent] if d != dependee]
        seen = set(stack)
        while stack:
            t = stack.pop()
            if t == dependee:
                return True
            for d in self.succ[t]:
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return False

    def schedule(self, component: set[str], edge: Edge) -> list[str]:
        """Tests of ``component`` with ``edge`` inverted, dependees first (ties by reference
        position, like a lexicographic topological sort), cut after the dependent."""
        dependent, dependee = edge
        index = self.index
        waiting = {t: len(self.succ[t]) for t in component}
        waiting[dependent] -= 1  # no longer waits for the dependee...
        waiting[dependee] += 1  # ...which now waits for it
        ready = [(index[t], t) for t, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        out: list[str] = []
        while ready:
            _, test = heapq.heappop(ready)
            out.append(test)
            if test == dependent:
                break
            for d in self.pred[test]:
                waiting[d] -= 1
                if waiting[d] == 0:
                    heapq.heappush(ready, (index[d], d))
        return out


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
) -> RefineResult:
    """Test every data dependency of ``graph`` (edges ``dependent -> dependee``).

    ``reference`` is the run of ``reference_order`` whose outcomes schedules are compared
    with (typically the probed collection run); without it the order is run once first.
    ``also_reverse`` then collects a second graph from the reversed order with the state
    probe (``probe_options``) and refines it too, to catch polluters that run after their
    victims in the reference order (findings marked ``source="reversed"``).

    Edges in ``keep`` are manifest already (another refinement tested the same pair): they
    constrain the schedules like manifest edges but are not tested again.
    """
    result = _refine(executor, graph, reference_order, reference, jobs, on_progress, source, keep)
    if also_reverse:
        backwards = list(reference_order)[::-1]
        result.merge(
            _collect_and_refine(executor, backwards, probe_options, jobs, on_progress, "reversed")
        )
    return result


def _collect_and_refine(
    executor: Executor,
    order: list[str],
    probe_options: Optional[dict[str, Any]],
    jobs: int,
    on_progress: Optional[ProgressCallback],
    source: str,
) -> RefineResult:
    """Run ``order`` under the state probe, then refine its graph against that very run."""
    run = executor.run(order, probe=ProbeSpec(STATE_PROBE, dict(probe_options or {})))
    found = _refine(executor, graph_from_probe(run.probe), order, run, jobs, on_progress, source)
    found.executions += len(order)
    found.orders.insert(0, list(order))
    return found


def _refine(
    executor: Executor,
    graph: nx.DiGraph,
    reference_order: Sequence[str],
    reference: Optional[OrderResult],
    jobs: int,
    on_progress: Optional[ProgressCallback],
    source: str,
    keep: Container[Edge] = (),
) -> RefineResult:
    if jobs < 1:
        raise UsageError(f"jobs must be at least 1, got {jobs!r}")
    order = list(reference_order)
    index = _check_order(order, graph)
    result = RefineResult(data_dependencies=graph.number_of_edges())
    if reference is None:
        reference = executor.run(order)
        result.executions += len(order)
        result.orders.append(order)
    expected: dict[str, Outcome] = {r.test: r.outcome for r in reference.results}
    position = {t: i for i, t in enumerate(reference.order)}

    work = _Work(graph.edges, index)
    tested = [e for e in graph.edges if e not in keep]
    priority = sorted(tested, key=lambda e: (-index[e[0]], -index[e[1]]))  # source-first
    total = len(priority)
    groups: list[tuple[set[str], list[Edge]]] = []
    for component in work.components(work.succ):
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
        batch: list[tuple[set[str], list[Edge], Edge, list[str]]] = []
        for component, edges in groups:
            chosen = next((e for e in edges if not work.inverts_into_cycle(e)), None)
            if chosen is None:  # deferred edges that no removal here can free any more
                result.untestable.extend(edges)
                continue
            batch.append((component, edges, chosen, work.schedule(component, chosen)))
        if not batch:
            break
        runs = _run(executor, [schedule for _, _, _, schedule in batch], jobs)
        groups = []
        for (component, edges, edge, schedule), run in zip(batch, runs):
            edges.remove(edge)
            result.executions += len(schedule)
            result.orders.append(schedule)
            dependent, dependee = edge
            want = expected.get(dependent, Outcome.PASSED)
            got = run.outcome_of(dependent)
            if got.is_failure == want.is_failure:
                work.remove(edge)
                result.removed.append(edge)
                parts = work.components(component)  # a removal may split the component
            else:
                cut = order[: position.get(dependent, index[dependent]) + 1]
                brittle = not want.is_failure
                result.manifest.append(
                    ManifestDependency(
                        dependent=dependent,
                        dependee=dependee,
                        roots=list(graph.edges[edge].get("roots", ())),
                        kind="brittle" if brittle else "victim",
                        failing_order=schedule if brittle else cut,
                        passing_order=cut if brittle else schedule,
                        source=source,
                    )
                )
                parts = [component]
            for part in parts:
                left = [e for e in edges if e[0] in part]
                if left:
                    groups.append((part, left))
            report()
        groups.sort(key=lambda g: min(index[t] for t in g[0]))
    result.untestable.sort(key=lambda e: (index[e[0]], index[e[1]]))
    report()
    return result


def _run(executor: Executor, schedules: list[list[str]], jobs: int) -> list[OrderResult]:
    if jobs > 1 and len(schedules) > 1:
        return executor.run_many(schedules)
    return [executor.run(s) for s in schedules]


def pradet(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    probe_options: Optional[dict[str, Any]] = None,
    also_reverse: bool = False,
    jobs: int = 1,
    on_progress: Optional[ProgressCallback] = None,
) -> RefineResult:
    """Collect data dependencies with the state probe and refine them (all of paper 001).

    Runs ``reference_order`` (default: the suite's order) once under the probe; that run is
    also the reference the schedules are compared with. With ``also_reverse`` the reversed
    order is collected and refined too, which finds polluters that run after their victims
    in the reference order.
    """
    if jobs < 1:
        raise UsageError(f"jobs must be at least 1, got {jobs!r}")
    order = list(reference_order) if reference_order is not None else executor.suite.ids
    result = _collect_and_refine(executor, order, probe_options, jobs, on_progress, "reference")
    if also_reverse:
        result.merge(
            _collect_and_refine(executor, order[::-1], probe_options, jobs, on_progress, "reversed")
        )
    return result
