"""PRADET's collection (paper 001 §III-A): probed runs of reference orders, and their file.

:func:`collect` runs the reference order (default: the suite's original order) once under
the state probe, which records per test the roots it wrote and read. With
``also_reverse`` the reversed order is collected too: a data dependency only points from
a reader back to an earlier writer, so a victim that runs before its polluter in the
reference order (the usual case when the original order passes) leaves an edge only in
the reversed run (the paper's http-request case, §VI-B).

A :class:`Collected` is what ``orderdep pradet collect`` saves (:func:`save_collected`,
schema :data:`SCHEMA`) and ``orderdep pradet refine`` loads (:func:`load_collected`).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import networkx as nx

from orderdep.analysis.pradet.datadeps import TestAccess, accesses, data_dependencies
from orderdep.analysis.pradet.refine import STATE_PROBE
from orderdep.core.jsonfile import load_json_file, write_text_file
from orderdep.core.orders import random_order
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.suite import GroupLevel
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import EngineError, ReportError, UsageError

SCHEMA = "orderdep.pradet/1"
REFERENCE, REVERSED, RANDOM = "reference", "reversed", "random"  # sources: random-1, ...
COLLECT_COMMAND = "orderdep pradet collect"


class CollectionStopped(EngineError):
    """The budget ran out while the probed runs were collecting data dependencies: the
    run still going was killed, and nothing was collected."""

    def __init__(self, source: str, ran: int, total: int) -> None:
        self.source, self.ran, self.total = source, ran, total
        super().__init__(
            f"the budget ran out while collecting data dependencies: the probed run of the "
            f"{source} order had finished {ran} of its {total} tests, so no data dependency was "
            "found or tested"
        )


PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class Collection:
    """One probed run: the order, each position's outcome and what each test accessed."""

    source: str  # REFERENCE or REVERSED
    order: list[str]
    outcomes: list[Outcome]
    accesses: list[TestAccess]
    roots: dict[str, str] = field(default_factory=dict)  # written root -> its final value
    stats: dict[str, Any] = field(default_factory=dict)
    _graph: Optional[nx.DiGraph] = field(default=None, init=False, repr=False, compare=False)
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
        """PRADET's test dependency graph of this run (edges dependent -> dependee), with an
        edge to every earlier writer of a root read
        (:func:`~orderdep.analysis.pradet.datadeps.data_dependencies` ``all_writers``);
        built once (callers must not change it)."""
        if self._graph is None:
            self._graph = data_dependencies(self.accesses, all_writers=True)
        return self._graph

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
    seed: Optional[int] = None  # of the random extra orders, if any
    # What lets a rerun of the command that collected it resume from it: the command's
    # job (its orders and pytest setup) and the code version (the store's key) it ran on.
    job: str = ""
    code: str = ""

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
            "seed": self.seed,
            **({"job": self.job, "code": self.code} if self.job else {}),
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
            seed=_optional_int(data.get("seed"), source),
            job=str(data.get("job", "")),
            code=str(data.get("code", "")),
        )


def _optional_int(value: Any, source: str) -> Optional[int]:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ReportError(
        f"{source} has seed {value!r}, not an integer; re-create it with `{COLLECT_COMMAND}`"
    )


def save_collected(path: PathLike, collected: Collected) -> None:
    """Write the collection file (atomically: a crash leaves the old file)."""
    text = json.dumps(collected.to_json(), indent=1) + "\n"
    write_text_file(path, text, "PRADET collection file", "--graph PATH")


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


@contextlib.contextmanager
def _killed_at(executor: Executor, deadline: Optional[float]) -> Iterator[None]:
    """Kill the orders ``executor`` runs once ``deadline`` passes (their results are then
    marked interrupted)."""
    interrupt = getattr(executor, "interrupt", None)
    if deadline is None or interrupt is None:
        yield
        return
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def collect(
    executor: Executor,
    reference_order: Optional[Sequence[str]] = None,
    *,
    also_reverse: bool = True,
    probe_options: Optional[Mapping[str, Any]] = None,
    project: str = "",
    jobs: int = 1,
    extra_orders: int = 0,
    seed: int = 0,
    group: GroupLevel = "class",
    deadline: Optional[float] = None,
) -> Collected:
    """Run the reference order (and its reverse) once each under the state probe.

    ``deadline`` (a :func:`time.monotonic` time, the budget's end): a probed run still
    going then is killed and :class:`CollectionStopped` raised.

    ``extra_orders`` more runs collect random ``group``-compatible orders of the same
    tests (:func:`orderdep.core.orders.random_order`, from ``random.Random(seed)``): a
    victim whose cleaner sits between it and its polluter in both the reference order and
    its reverse has its polluter right before it in some other order.
    """
    if extra_orders < 0:
        raise UsageError(f"extra_orders must be >= 0, got {extra_orders!r}")
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
    if extra_orders and len(order) > 1:
        rng = random.Random(seed)
        groups = list(executor.suite.groups(group, order).values())
        for i in range(extra_orders):
            orders.append((f"{RANDOM}-{i + 1}", random_order(groups, rng)))
    spec = ProbeSpec(STATE_PROBE, dict(probe_options or {}))
    plain = [o for _, o in orders]
    with _killed_at(executor, deadline):
        if jobs > 1 and len(plain) > 1:
            runs = executor.run_many(plain, probe=spec)
        else:
            runs = []
            for o in plain:
                runs.append(executor.run(o, probe=spec))
                if runs[-1].interrupted:
                    break
    for (source, order_run), run in zip(orders, runs):
        if run.interrupted:
            stopped = (Outcome.NOT_RUN, Outcome.CRASHED)  # not started, killed
            ran = sum(r.outcome not in stopped for r in run.results)
            raise CollectionStopped(source, ran, len(order_run))
    return Collected(
        project=project,
        tests=list(executor.suite.ids),
        collections=[Collection.from_run(src, run) for (src, _), run in zip(orders, runs)],
        reference="original" if reference_order is None else "given",
        seed=seed if extra_orders else None,
    )
