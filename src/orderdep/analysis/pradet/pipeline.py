"""PRADET end to end (paper 001, Figure 1): collect, build the graph, refine, report.

1. **Collect** (§III-A): one run of the reference order (default: the suite's original
   order) under the state probe records, per test, the roots it wrote and read. With
   ``also_reverse`` the reversed order is collected too: a data dependency only points
   from a reader back to an earlier writer, so a victim that runs before its polluter in
   the reference order (the usual case when the original order passes) leaves an edge
   only in the reversed run (the paper's http-request case, §VI-B).
2. **Graph and refine** (§III-B): each collection's data dependencies are refined by
   :func:`~orderdep.analysis.pradet.refine.refine` against that very run's outcomes.
   A reader depends on *every* earlier writer of a root it read, not only the last one
   (:func:`dependency_graph`): a root is a whole module global, so two tests adding
   different keys to one dict both write it, and the later write does not replace the
   earlier one the way a write to a Java field does.
3. **Confirm** (a check the paper does by hand, §VI-B "we verified that all the reported
   dependencies can occur"): each manifest dependency is run again ``confirm_runs``
   times, first in the shortest orders that can show it (the dependent alone, and the
   dependee right before it), else as refinement's schedule without and with the
   dependee. One that does not reproduce is dropped as possibly non-deterministic.
4. **Beyond one edge at a time** (both reuse the confirmation's runs of tests alone):
   *alternatives*: when either of two dependees suffices, moving one leaves the other and
   refinement removes both edges, so the removed dependees of a test whose outcome alone
   differs from the collected run are tried alone; *search*: a conditional dependency
   (below) points at a cleaner, and delta debugging over its schedule finds the polluter.
5. **Report**: manifest dependencies become OD findings (004's vocabulary: a brittle
   with its state-setters, a victim with its polluters and cleaners) with their failing
   and passing orders, merged into an existing report or a new one; the report's
   ``"pradet"`` key keeps the data dependencies, the roots they flow through and the cost.

A dependency whose dependee alone shows it (``alone``) is an alternative of its own
(``state_setters``/``polluters``); several that only show it together become one group.
If the dependent's behaviour alone contradicts the kind (a "brittle" that passes alone:
the dependee was a cleaner of some polluter in the schedule), the dependency is real but
*conditional*: it is kept under ``"pradet"`` and not turned into a finding.

Limits (besides the paper's §V): a state-setter whose write changes nothing in the
collected run (an earlier test did the same) leaves no data dependency; a victim whose
cleaner runs between it and its polluter in both collected orders, with the schedules
keeping the cleaner's own dependencies, is not seen.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import networkx as nx

from orderdep.analysis.pradet.datadeps import TestAccess, accesses, matching
from orderdep.analysis.pradet.refine import (
    ManifestDependency,
    ProgressCallback,
    RefineResult,
    refine,
)
from orderdep.core.ddmin import DDMinPreconditionError, ddmin
from orderdep.core.odmodel import group_key
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.report import ODFinding, Report, RunStats, load_json_file
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import EngineError, ReportError, UsageError

STATE_PROBE = "orderdep.analysis.state.probe"
SCHEMA = "orderdep.pradet/1"
REFERENCE, REVERSED = "reference", "reversed"
COLLECT_COMMAND = "orderdep pradet collect"
Notice = Callable[[str], None]
PathLike = Union[str, "os.PathLike[str]"]


# -- collection ----------------------------------------------------------------------------
def dependency_graph(seq: Sequence[TestAccess]) -> nx.DiGraph:
    """The test dependency graph with an edge to every earlier writer of a root read.

    Same form as :func:`~orderdep.analysis.pradet.datadeps.data_dependencies` (nodes
    with ``index``, edges ``dependent -> dependee`` with sorted ``roots``); only the
    last-writer rule differs. Refinement keeps the other writers before the dependent
    while it tests one, so a later writer no longer hides an earlier one.
    """
    graph = nx.DiGraph()
    writers: dict[str, list[str]] = {}
    for access in seq:
        test = access.test
        if test not in graph:
            graph.add_node(test, index=access.index)
        for read in access.reads:
            for root in matching(read, writers) if read.endswith("*") else [read]:
                for writer in writers.get(root, ()):
                    if writer == test:
                        continue
                    if graph.has_edge(test, writer):
                        graph.edges[test, writer]["roots"].add(root)
                    else:
                        graph.add_edge(test, writer, roots={root})
        for root in access.writes:
            tests = writers.setdefault(root, [])
            if test not in tests:
                tests.append(test)
    for _, _, data in graph.edges(data=True):
        data["roots"] = sorted(data["roots"])
    return graph


@dataclass
class Collection:
    """One probed run: the order, each position's outcome and what each test accessed."""

    source: str  # REFERENCE or REVERSED
    order: list[str]
    outcomes: list[Outcome]
    accesses: list[TestAccess]
    roots: dict[str, str] = field(default_factory=dict)  # written root -> its final value
    stats: dict[str, Any] = field(default_factory=dict)
    wall_seconds: float = 0.0

    @classmethod
    def from_run(cls, source: str, run: OrderResult) -> Collection:
        if not run.probe and not run.complete:
            bad = next((r for r in run.results if not r.outcome.is_pass), None)
            where = f" at {bad.test!r} ({bad.outcome.value}: {bad.message})" if bad else ""
            raise EngineError(
                f"the probed run of the {source} order did not finish{where}, so it "
                "returned no data dependencies; run that order with `orderdep run` to see "
                "whether the tests alone crash, else rerun with --timeout or report the crash"
            )
        return cls(
            source=source,
            order=list(run.order),
            outcomes=[r.outcome for r in run.results],
            accesses=accesses(run.probe),  # raises if the probe failed in the child
            roots={str(k): str(v) for k, v in dict(run.probe.get("roots") or {}).items()},
            stats=dict(run.probe.get("stats") or {}),
            wall_seconds=run.wall_seconds,
        )

    def graph(self) -> nx.DiGraph:
        """PRADET's test dependency graph of this run (edges dependent -> dependee)."""
        return dependency_graph(self.accesses)

    def reference(self) -> OrderResult:
        """The run's outcomes as an :class:`OrderResult` (refinement compares with it)."""
        results = [TestResult(t, o) for t, o in zip(self.order, self.outcomes)]
        return OrderResult(order=list(self.order), results=results, runner="collection")

    def failing(self) -> list[str]:
        return [t for t, o in zip(self.order, self.outcomes) if o.is_failure]

    def writers(self) -> dict[str, list[str]]:
        """Root -> the tests that wrote it, in run order."""
        out: dict[str, list[str]] = {}
        for access in self.accesses:
            for root in access.writes:
                out.setdefault(root, []).append(access.test)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "order": list(self.order),
            "outcomes": [o.value for o in self.outcomes],
            "accesses": [
                {
                    "index": a.index,
                    "test": a.test,
                    "reads": sorted(a.reads),
                    "writes": sorted(a.writes),
                }
                for a in self.accesses
            ],
            "roots": dict(sorted(self.roots.items())),
            "stats": self.stats,
            "wall_seconds": round(self.wall_seconds, 6),
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> Collection:
        if not isinstance(data, dict):
            raise ReportError(f"{where} must be a JSON object, got {data!r}")
        try:
            order = [str(t) for t in data["order"]]
            outcomes = [Outcome(o) for o in data["outcomes"]]
            seq = accesses({"tests": data["accesses"]})
            return cls(
                source=str(data["source"]),
                order=order,
                outcomes=outcomes,
                accesses=seq,
                roots={str(k): str(v) for k, v in dict(data.get("roots") or {}).items()},
                stats=dict(data.get("stats") or {}),
                wall_seconds=float(data.get("wall_seconds", 0.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(
                f"{where} is malformed ({exc!r}); re-create it with `{COLLECT_COMMAND}`"
            ) from None


@dataclass
class Collected:
    """Every collection of one PRADET analysis (what ``orderdep pradet collect`` saves)."""

    project: str
    tests: list[str]  # the suite, in original order
    collections: list[Collection]
    reference: str = "original"  # how the reference order was chosen

    @property
    def executions(self) -> int:
        return sum(len(c.order) for c in self.collections)

    def collection(self, source: str) -> Optional[Collection]:
        return next((c for c in self.collections if c.source == source), None)

    def data_dependencies(self) -> list[dict[str, Any]]:
        """Every data dependency of every collection (``dependent``, ``dependee``,
        ``roots``, ``source``), in collection and then dependent order."""
        out = []
        for c in self.collections:
            graph = c.graph()
            position = {t: i for i, t in enumerate(c.order)}
            edges = sorted(graph.edges(data=True), key=lambda e: (position[e[0]], position[e[1]]))
            for dependent, dependee, data in edges:
                out.append(
                    {
                        "dependent": dependent,
                        "dependee": dependee,
                        "roots": list(data["roots"]),
                        "source": c.source,
                    }
                )
        return out

    def most_written(self, n: int = 10) -> list[tuple[str, int, str]]:
        """``(root, writers, description)`` of the roots most tests wrote (in any run)."""
        count: dict[str, int] = {}
        about: dict[str, str] = {}
        for c in self.collections:
            for root, writers in c.writers().items():
                count[root] = max(count.get(root, 0), len(writers))
                about.setdefault(root, c.roots.get(root, ""))
        ranked = sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [(root, k, about[root]) for root, k in ranked]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "project": self.project,
            "tests": list(self.tests),
            "reference": self.reference,
            "collections": [c.to_json() for c in self.collections],
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "collection file") -> Collected:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else type(data).__name__
            raise ReportError(
                f"{source} has schema {found!r}, not {SCHEMA!r}; re-create it with "
                f"`{COLLECT_COMMAND}`"
            )
        raw = data.get("collections")
        if not isinstance(raw, list) or not raw:
            raise ReportError(
                f"{source} holds no collections; re-create it with `{COLLECT_COMMAND}`"
            )
        return cls(
            project=str(data.get("project", "")),
            tests=[str(t) for t in data.get("tests", [])],
            collections=[
                Collection.from_json(c, f"{source}: collections[{i}]") for i, c in enumerate(raw)
            ],
            reference=str(data.get("reference", "original")),
        )


def save_collected(path: PathLike, collected: Collected) -> None:
    """Write the collection file (atomically: a crash leaves the old file)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(collected.to_json(), indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def load_collected(path: PathLike, project: Optional[str] = None) -> Collected:
    """Load a collection file; with ``project``, refuse another project's."""
    data = load_json_file(path, "PRADET collection file", f"create one with `{COLLECT_COMMAND}`.")
    collected = Collected.from_json(data, f"collection file {str(path)!r}")
    if project is not None and not _same_path(collected.project, project):
        raise ReportError(
            f"collection file {str(path)!r} is for project {collected.project!r}, not "
            f"{project!r}; run `{COLLECT_COMMAND}` in {project!r}"
        )
    return collected


def _same_path(a: str, b: str) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def collect(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    also_reverse: bool = True,
    probe_options: Optional[Mapping[str, Any]] = None,
    project: str = "",
    jobs: int = 1,
) -> Collected:
    """Run the reference order (and its reverse) once each under the state probe."""
    order = list(reference_order) if reference_order is not None else executor.suite.ids
    if not order:
        raise UsageError("the reference order is empty: give at least one test to collect")
    if len(set(order)) != len(order):
        twice = next(t for i, t in enumerate(order) if t in order[:i])
        raise UsageError(
            f"the reference order runs {twice!r} more than once; PRADET needs each test "
            "once: remove the repeats from the order file"
        )
    orders = [(REFERENCE, order)]
    if also_reverse and len(order) > 1:
        orders.append((REVERSED, order[::-1]))
    spec = ProbeSpec(STATE_PROBE, dict(probe_options or {}))
    plain = [o for _, o in orders]
    if jobs > 1 and len(plain) > 1:
        runs = executor.run_many(plain, probe=spec)
    else:
        runs = [executor.run(o, probe=spec) for o in plain]
    return Collected(
        project=project,
        tests=list(executor.suite.ids),
        collections=[Collection.from_run(src, run) for (src, _), run in zip(orders, runs)],
        reference="original" if reference_order is None else "given",
    )


# -- refinement and confirmation -----------------------------------------------------------
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
    behind a conditional dependency (see :func:`refine_collected`).
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


Order = tuple[str, ...]


class _Checks:
    """Runs check orders (each distinct order ``runs`` times) and remembers the outcomes."""

    def __init__(self, executor: Executor, runs: int, jobs: int, result: PradetResult) -> None:
        self.executor, self.runs, self.jobs, self.result = executor, runs, jobs, result
        self.failed: dict[Order, list[bool]] = {}  # order -> did its last test fail, per run

    def run(self, orders: Iterable[Order]) -> int:
        """Run the orders not run yet; return the test executions spent."""
        todo = [o for o in dict.fromkeys(orders) if o not in self.failed] * self.runs
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

    def fails(self, order: Order) -> bool:
        return all(self.failed[order])

    def passes(self, order: Order) -> bool:
        return not any(self.failed[order])

    def shows(self, failing: Order, passing: Order) -> bool:
        return self.fails(failing) and self.passes(passing)

    def alone_fits(self, test: str, kind: str) -> bool:
        """A victim passes alone, a brittle fails alone (004 §2)."""
        return self.passes((test,)) if kind == "victim" else self.fails((test,))


def _pair_orders(dependent: str, dependee: str, kind: str) -> tuple[Order, Order]:
    """(failing, passing) with the dependee alone."""
    single, both = (dependent,), (dependee, dependent)
    return (both, single) if kind == "victim" else (single, both)


def _schedule_orders(m: ManifestDependency, position: Mapping[str, int]) -> tuple[Order, Order]:
    """(failing, passing): refinement's schedule without the dependee, and with it put back
    where the collected run had it (before the first later test); they differ in it only."""
    without = tuple(m.failing_order if m.kind == "brittle" else m.passing_order)
    at = position.get(m.dependee, -1)
    cut = next((i for i, t in enumerate(without) if position.get(t, -1) > at), len(without) - 1)
    with_it = (*without[:cut], m.dependee, *without[cut:])
    return (with_it, without) if m.kind == "victim" else (without, with_it)


def _confirm(checks: _Checks, result: PradetResult) -> None:
    """Confirm each manifest dependency: the pair orders first, else the schedule orders."""
    manifest = result.refined.manifest
    pairs = [_pair_orders(m.dependent, m.dependee, m.kind) for m in manifest]
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
    schedules = {i: _schedule_orders(manifest[i], positions[manifest[i].source]) for i in later}
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


def _alternatives(
    checks: _Checks,
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
        failing, passing = _pair_orders(dependent, dependee, kind)
        tries.append(((dependent, dependee), kind, failing, passing))
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


def _search(
    checks: _Checks,
    result: PradetResult,
    graphs: Mapping[str, nx.DiGraph],
) -> None:
    """The polluters (state-setters) behind each conditional dependency.

    A test that passes alone but fails once the dependee is moved after it (so "needs" the
    dependee) is a victim whose polluter runs earlier in that schedule and whose cleaner is
    the dependee; symmetrically, a test failing alone that passes once the dependee moves
    is a brittle whose state-setter is in the schedule. Delta debugging (``ddmin``, as
    iFixFlakies' minimiser, 004 §4.1) over the schedule finds a 1-minimal polluter
    (state-setter) set; when that is one test, every other test of the schedule is tried
    alone too, since any of several polluters would have done.
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
            culprits = ddmin(list(shown[:-1]), holds)
        except DDMinPreconditionError:
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


def refine_collected(
    executor: Executor,
    collected: Collected,
    *,
    jobs: int = 1,
    confirm_runs: int = 1,
    alternatives: bool = True,
    search: bool = True,
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Notice] = None,
) -> PradetResult:
    """Refine every collection's data dependencies, then confirm the manifest ones.

    With ``confirm_runs`` > 0 each manifest dependency is confirmed that many times; with
    ``alternatives`` removed dependencies of tests whose outcome alone differs from the
    collected run are tried alone (:func:`_alternatives`); with ``search`` the polluters
    and state-setters behind conditional dependencies are searched (:func:`_search`).
    Both need confirmation (they reuse its runs of each test alone).
    """
    say = notice or (lambda message: None)
    start = time.perf_counter()
    result = PradetResult(collected=collected)
    refined: list[tuple[Collection, nx.DiGraph, RefineResult]] = []
    for c in collected.collections:
        graph = c.graph()
        say(f"refining {graph.number_of_edges()} data dependencies of the {c.source} order")
        found = refine(
            executor,
            graph,
            c.order,
            reference=c.reference(),
            jobs=jobs,
            on_progress=on_progress,
            source=c.source,
        )
        refined.append((c, graph, found))
        result.refined.merge(found)
    if confirm_runs > 0:
        checks = _Checks(executor, confirm_runs, jobs, result)
        if result.refined.manifest:
            say(f"confirming {len(result.refined.manifest)} manifest dependencies")
            _confirm(checks, result)
        if alternatives:
            say("trying removed dependencies of tests that behave differently alone")
            _alternatives(checks, result, refined)
        if search and any(e.conditional for e in result.evidence):
            say("searching the polluters and state-setters behind conditional dependencies")
            _search(checks, result, {c.source: g for c, g, _ in refined})
    else:
        result.evidence = [Evidence(m) for m in result.refined.manifest]
    result.wall_seconds = time.perf_counter() - start
    return result


def run_pradet(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    also_reverse: bool = True,
    jobs: int = 1,
    confirm_runs: int = 1,
    alternatives: bool = True,
    search: bool = True,
    probe_options: Optional[Mapping[str, Any]] = None,
    project: str = "",
    on_progress: Optional[ProgressCallback] = None,
    notice: Optional[Notice] = None,
) -> PradetResult:
    """All of PRADET: :func:`collect`, then :func:`refine_collected`."""
    start = time.perf_counter()
    say = notice or (lambda message: None)
    say("collecting data dependencies" + (" (reference and reversed orders)" * also_reverse))
    collected = collect(
        executor,
        reference_order,
        also_reverse=also_reverse,
        probe_options=probe_options,
        project=project,
        jobs=jobs,
    )
    result = refine_collected(
        executor,
        collected,
        jobs=jobs,
        confirm_runs=confirm_runs,
        alternatives=alternatives,
        search=search,
        on_progress=on_progress,
        notice=notice,
    )
    result.wall_seconds = time.perf_counter() - start
    return result


# -- findings and the report ---------------------------------------------------------------
def findings(result: PradetResult) -> list[ODFinding]:
    """One OD finding per dependent test, from the confirmed, unconditional dependencies.

    A test found both ways keeps the kind found first (the reference order's before the
    reversed one's); the other kind's dependencies stay under its ``"pradet"`` key.
    """
    positions = {
        c.source: {t: i for i, t in enumerate(c.order)} for c in result.collected.collections
    }
    by_test: dict[str, list[Evidence]] = {}
    for e in result.manifest:
        by_test.setdefault(e.dependency.dependent, []).append(e)
    out = []
    for test, found in by_test.items():
        kind = found[0].dependency.kind
        same = [e for e in found if e.dependency.kind == kind]
        singles = [e.dependency.dependee for e in same if e.alone]
        rest = [e for e in same if not e.alone]
        groups: list[list[str]] = []
        if len(rest) == 1:
            singles.append(rest[0].dependency.dependee)
        elif rest:
            where = positions.get(rest[0].dependency.source, {})
            members = sorted({e.dependency.dependee for e in rest}, key=lambda t: where.get(t, -1))
            groups.append(members)
        shown = next((e for e in same if e.alone), same[0]).dependency
        finding = ODFinding(
            test=test,
            kind=kind,
            failing_order=list(shown.failing_order),
            passing_order=list(shown.passing_order),
            extras={"pradet": {"dependencies": [e.to_json() for e in found]}},
        )
        if kind == "victim":
            finding.polluters, finding.polluter_groups = _unique(singles), groups
            for e in same:
                if e.cleaner is not None:
                    key = e.dependency.dependee if e.alone or not groups else group_key(groups[0])
                    cleaners = finding.cleaners.setdefault(key, [])
                    if e.cleaner not in cleaners:
                        cleaners.append(e.cleaner)
        else:
            finding.state_setters, finding.state_setter_groups = _unique(singles), groups
        out.append(finding)
    return out


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def summary_json(result: PradetResult) -> dict[str, Any]:
    """The report's ``"pradet"`` key: data dependencies, their roots, outcomes, cost."""
    collected = result.collected
    deps = collected.data_dependencies()
    used = sorted({r for d in deps for r in d["roots"]})
    writers: dict[str, int] = {}
    about: dict[str, str] = {}
    for c in collected.collections:
        for root, tests in c.writers().items():
            writers[root] = max(writers.get(root, 0), len(tests))
            if c.roots.get(root):
                about.setdefault(root, c.roots[root])
    return {
        "reference": collected.reference,
        "collections": [
            {
                "source": c.source,
                "tests": len(c.order),
                "data_dependencies": c.graph().number_of_edges(),
                "failing": c.failing(),
                "wall_seconds": round(c.wall_seconds, 6),
            }
            for c in collected.collections
        ],
        "data_dependencies": deps,
        "roots": {r: {"writers": writers.get(r, 0), "value": about.get(r, "")} for r in used},
        "manifest": [e.to_json() for e in result.evidence],
        "removed": len(result.refined.removed),
        "untestable": [list(e) for e in result.refined.untestable],
        "unconfirmed": [m.to_json() for m in result.unconfirmed],
        "executions": result.executions,
        "orders_run": result.orders_run,
        "wall_seconds": round(result.wall_seconds, 6),
    }


def merge_report(report: Optional[Report], result: PradetResult) -> Report:
    """``report`` (or a new one) with PRADET's findings merged in and its ``"pradet"`` key.

    An existing finding of the same kind gains the new polluters/state-setters; an
    unclassified one takes PRADET's kind; one of the other kind is left as it is (PRADET's
    view stays under its ``"pradet"`` key). Evidence orders already there are kept.
    """
    collected = result.collected
    new = findings(result)
    if report is None:
        report = Report(project=collected.project, tests=list(collected.tests))
    else:
        known = set(report.tests)
        stray = sorted({t for f in new for t in f.mentioned_ids()} - known)
        if stray:
            raise ReportError(
                f"the report lists another suite: {len(stray)} test(s) PRADET found, e.g. "
                f"{stray[0]!r}, are not in its tests; write to a new report with --report "
                "FILE, or delete the old one"
            )
    for finding in new:
        old = report.finding(finding.test)
        if old is None:
            report.od_tests.append(finding)
            continue
        mine = finding.extras["pradet"]
        if old.kind is None:
            old.kind = finding.kind
        if old.kind != finding.kind:
            old.extras["pradet"] = {**mine, "conflict": f"PRADET found a {finding.kind}"}
            continue
        old.polluters = _unique([*old.polluters, *finding.polluters])
        old.state_setters = _unique([*old.state_setters, *finding.state_setters])
        for attr in ("polluter_groups", "state_setter_groups"):
            groups: list[list[str]] = getattr(old, attr)
            groups += [g for g in getattr(finding, attr) if g not in groups]
        for key, cleaners in finding.cleaners.items():
            old.cleaners[key] = _unique([*old.cleaners.get(key, []), *cleaners])
        if not old.failing_order or not old.passing_order:
            old.failing_order, old.passing_order = finding.failing_order, finding.passing_order
        old.extras["pradet"] = mine
    stats: RunStats = report.stats
    stats.orders_run += result.orders_run
    stats.test_executions += result.executions["total"]
    stats.wall_seconds += result.wall_seconds
    if "pradet" not in stats.strategies:
        stats.strategies.append("pradet")
    report.extras["pradet"] = summary_json(result)
    report.check_consistent("PRADET's report")
    return report
