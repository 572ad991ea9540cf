"""Detection benchmark: Tuscan pair cover vs all pairs, and the recall of random orders.

For generated suites (``orderdep.synth.generate.generate_suite``) of each ``--sizes``:

* orders, test executions and wall time of ``tuscan`` (004 §5, Algorithm 1) and ``pairs``
  (every ordered pair alone, DTDetector's baseline). Tuscan is run for real. Pairs are run
  for real when a measured sample says they take less than ``--pairs-budget`` seconds;
  otherwise their orders and executions are exact (n(n-1) orders of 2 tests) and their wall
  time is estimated from the sample's rate.
* recall: the fraction of planted OD tests (victims and brittles) an order set detects,
  judged against the ground truth: a test is detected when some order of the set fails it
  and some order passes it. For ``random`` and ``random-reverse`` after 10/50/100 orders
  (mean over seeds), for ``tuscan``, ``tuscan`` + ``isolation`` and ``pairs``. Real runs
  (fork runner, ``--jobs``) for ``--real-seeds`` seeds; the ground-truth model
  (``odmodel.fails``) for ``--model-seeds`` seeds, and where real runs are not affordable.
* the complete pair cover of the largest suite through ``orderdep.analysis.detect``: wall
  time, and whether every single-polluter victim (and, with isolation, every
  single-state-setter brittle) was found, as 004 §5 guarantees.

Usage: python benchmarks/bench_detect.py [--sizes 100 500] [--jobs 2] [--real-seeds 3]
Writes the section "Detection" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

from orderdep.core import orders as gen
from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.outcomes import OrderResult
from orderdep.core.suite import Suite
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.synth.generate import generate_suite
from orderdep.synth.truth import GroundTruth

SUITE_SEED = 1
CUTS = (10, 50, 100)
PAPER_EXEC_RATIO = 51.8  # 004 §6: Tuscan runs 51.8% of the tests all pairs run
PAPER_ORDER_RATIO = 3.68  # ... in 3.68% of the orders


# -- judging order sets against the ground truth ------------------------------------------


class Predictor:
    """Which tests fail in an order, from the ground truth (ND tests: unknown)."""

    def __init__(self, truth: GroundTruth) -> None:
        self.specs: dict[str, ODSpec] = {s.test: s for s in truth.model_specs()}
        self.nd = set(truth.nd_tests)
        self.always = set(truth.always_failing)

    def failures(self, order: Sequence[str]) -> list[Optional[bool]]:
        out: list[Optional[bool]] = []
        for i, test in enumerate(order):
            if test in self.nd:
                out.append(None)
            elif test in self.always:
                out.append(True)
            else:
                spec = self.specs.get(test)
                out.append(spec is not None and fails_at(spec, order[:i]))
        return out


@dataclass
class Seen:
    """For each test: whether some order failed it and whether some order passed it."""

    failed: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)

    def add(self, order: Sequence[str], failures: Sequence[Optional[bool]]) -> set[str]:
        """Record one order; return the tests that failed in it for the first time."""
        new: set[str] = set()
        for test, failed in zip(order, failures):
            if failed is None:
                continue
            if failed:
                if test not in self.failed:
                    new.add(test)
                self.failed.add(test)
            else:
                self.passed.add(test)
        return new

    def detected(self) -> set[str]:
        return self.failed & self.passed


def real_failures(result: OrderResult) -> list[Optional[bool]]:
    return [
        r.outcome.is_failure if r.outcome.is_failure or r.outcome.is_pass else None for r in result
    ]


@dataclass
class Agreement:
    """How often real outcomes matched the ground truth (ND tests excluded)."""

    checked: int = 0
    mismatches: list[tuple[list[str], str]] = field(default_factory=list)

    def check(
        self, order: Sequence[str], real: Sequence[Optional[bool]], model: Sequence[Optional[bool]]
    ) -> None:
        for test, r, m in zip(order, real, model):
            if m is None or r is None:
                continue
            self.checked += 1
            if r != m:
                self.mismatches.append((list(order), test))


def _kind(spec: ODSpec) -> str:
    if spec.kind == "victim":
        if spec.polluters:
            return "victim of a single polluter"
        return "victim of a polluter group only"
    if spec.state_setters:
        return "brittle with a single state-setter"
    return "brittle with a state-setter group only"


@dataclass
class Planted:
    """The planted OD tests of a suite, by what 004 §5 guarantees about them."""

    od: list[str]
    single_victims: list[str]  # victims with at least one single polluter
    single_brittles: list[str]  # brittles with at least one single state-setter

    @classmethod
    def of(cls, truth: GroundTruth) -> Planted:
        return cls(
            od=[s.test for s in truth.specs],
            single_victims=[s.test for s in truth.specs if s.kind == "victim" and s.polluters],
            single_brittles=[
                s.test for s in truth.specs if s.kind == "brittle" and s.state_setters
            ],
            kinds={s.test: _kind(s) for s in truth.specs},
        )

    kinds: dict[str, str] = field(default_factory=dict)  # test -> what it is, for notes

    def describe(self, tests: Iterable[str]) -> str:
        return "; ".join(f"{t} ({self.kinds.get(t, '?')})" for t in sorted(tests))

    def recall(self, detected: set[str]) -> float:
        return len(detected & set(self.od)) / len(self.od) if self.od else 1.0


# -- running order sets ----------------------------------------------------------------


@dataclass
class RunStats:
    orders: int
    executions: int
    wall: float
    seen: Seen


def run_real(
    engine: Engine,
    orders: Sequence[Sequence[str]],
    predictor: Predictor,
    agreement: Agreement,
    seen: Optional[Seen] = None,
) -> RunStats:
    seen = seen if seen is not None else Seen()

    def on_result(_i: int, result: OrderResult) -> None:
        real = real_failures(result)
        seen.add(result.order, real)
        agreement.check(result.order, real, predictor.failures(result.order))

    start = time.perf_counter()
    engine.run_many([list(o) for o in orders], on_result=on_result)
    wall = time.perf_counter() - start
    return RunStats(len(orders), sum(len(o) for o in orders), wall, seen)


def run_model(
    orders: Iterable[Sequence[str]], predictor: Predictor, seen: Optional[Seen] = None
) -> Seen:
    seen = seen if seen is not None else Seen()
    for order in orders:
        seen.add(order, predictor.failures(order))
    return seen


# -- random and random-reverse streams ------------------------------------------------


class Stream:
    """One seeded sequence of ``random`` or ``random-reverse`` orders with its findings."""

    def __init__(self, strategy: str, groups: list[list[str]], seed: int) -> None:
        self.strategy = strategy
        self.rng = random.Random(seed)
        self.groups = groups
        self.rr = gen.RandomReverse(groups, self.rng) if strategy == "random-reverse" else None
        self.seen = Seen()
        self.recall_at: dict[int, float] = {}
        self.count = 0

    def next_order(self) -> list[str]:
        if self.rr is not None:
            return self.rr.next_order()
        return gen.random_order(self.groups, self.rng)

    def record(
        self, order: list[str], failures: Sequence[Optional[bool]], planted: Planted
    ) -> None:
        new = self.seen.add(order, failures)
        if self.rr is not None:
            self.rr.feedback(bool(new))
        self.count += 1
        if self.count in CUTS:
            self.recall_at[self.count] = planted.recall(self.seen.detected())


def random_recall(
    groups: list[list[str]],
    seeds: Sequence[int],
    planted: Planted,
    run: Callable[[list[list[str]]], list[list[Optional[bool]]]],
) -> dict[tuple[str, int], list[float]]:
    """Mean-able recall at each cut for both strategies; one batch per round of streams.

    Streams advance together so that a round's orders can run in parallel while each
    random-reverse stream still gets the feedback of its previous order.
    """
    streams = [Stream(s, groups, seed) for s in gen.RANDOM_STRATEGIES for seed in seeds]
    for _ in range(max(CUTS)):
        batch = [st.next_order() for st in streams]
        for st, order, failures in zip(streams, batch, run(batch)):
            st.record(order, failures, planted)
    out: dict[tuple[str, int], list[float]] = {}
    for st in streams:
        for cut, value in st.recall_at.items():
            out.setdefault((st.strategy, cut), []).append(value)
    return out


# -- detect() end to end, with the orders of each strategy told apart ----------------------


class Recorder:
    """An executor around the engine that tells which strategy's orders each run belongs to.

    ``tags`` maps orders to the strategy that generates them; an order's first run is
    credited to its strategy (what that strategy showed, and its wall time), every other
    run to ``confirm``. Batches (``run_many`` calls) mixing strategies count as ``confirm``.
    """

    def __init__(self, engine: Engine, tags: dict[tuple[str, ...], str]) -> None:
        self.engine = engine
        self.tags = tags
        self.first: set[tuple[str, ...]] = set()
        self.seen: dict[str, Seen] = {}
        self.wall: dict[str, float] = {}
        self.orders: dict[str, int] = {}
        self.executions: dict[str, int] = {}
        self.results: dict[str, list[tuple[list[str], list[Optional[bool]]]]] = {}

    @property
    def suite(self) -> Suite:
        return self.engine.suite

    def _tag(self, order: Sequence[str]) -> str:
        key = tuple(order)
        if key in self.tags and key not in self.first:
            return self.tags[key]
        return "confirm"

    def run(self, order: Sequence[str], *, probe: object = None) -> OrderResult:
        return self.run_many([order])[0]

    def run_many(
        self,
        orders: Sequence[Sequence[str]],
        *,
        probe: object = None,
        on_result: Optional[Callable[[int, OrderResult], None]] = None,
    ) -> list[OrderResult]:
        kinds = [self._tag(o) for o in orders]
        batch_kind = kinds[0] if len(set(kinds)) == 1 else "confirm"
        start = time.perf_counter()
        results = self.engine.run_many(orders, on_result=on_result)
        self.wall[batch_kind] = self.wall.get(batch_kind, 0.0) + time.perf_counter() - start
        for kind, result in zip(kinds, results):
            self.first.add(tuple(result.order))
            self.orders[kind] = self.orders.get(kind, 0) + 1
            self.executions[kind] = self.executions.get(kind, 0) + len(result.order)
            if kind != "confirm":
                failures = real_failures(result)
                self.seen.setdefault(kind, Seen()).add(result.order, failures)
                self.results.setdefault(kind, []).append((list(result.order), failures))
        return results


@dataclass
class SizeFigures:
    n: int
    planted: Planted
    groups: int
    tuscan_orders: int
    tuscan_execs: int
    tuscan_wall: float
    pairs_orders: int
    pairs_execs: int
    pairs_wall: float
    pairs_measured: bool  # all pairs really run (else: wall estimated from a sample)
    pairs_sample: int
    detect_wall: float
    detect_orders: int
    detect_execs: int
    found: set[str]  # OD tests in detect's report
    recall_rows: list[list[object]] = field(default_factory=list)
    agreement: Agreement = field(default_factory=Agreement)
    notes: list[str] = field(default_factory=list)
    random_wall: float = 0.0
    random_orders: int = 0


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def mean_pct(values: Sequence[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return pct(values[0])
    return f"{pct(statistics.mean(values))} (min {pct(min(values))})"


def bench_size(n: int, args: argparse.Namespace, tmp: Path) -> SizeFigures:
    project = tmp / f"suite{n}"
    truth = generate_suite(project, n_tests=n, seed=SUITE_SEED)
    planted = Planted.of(truth)
    predictor = Predictor(truth)
    agreement = Agreement()
    print(
        f"\n== {n} tests: {len(planted.od)} planted OD tests "
        f"({len(planted.single_victims)} single-polluter victims, "
        f"{len(planted.single_brittles)} single-state-setter brittles)",
        flush=True,
    )
    with Engine(EngineConfig(project, runner="fork", jobs=args.jobs)) as engine:
        suite = engine.suite
        if suite.ids != truth.tests:
            raise SystemExit(f"collected tests differ from the ground truth for {n} tests")
        groups = [list(g) for g in suite.groups(args.group).values()]

        # Tuscan (+ isolation) through detect(), the way `orderdep detect` runs them.
        from orderdep.analysis.detect import detect

        tuscan = gen.generate("tuscan", groups, random.Random(args.seed))
        tags = {tuple(o): "tuscan" for o in tuscan}
        tags[tuple(suite.ids)] = "original"
        tags.update({(t,): "isolation" for t in suite.ids})
        recorder = Recorder(engine, tags)
        print(
            f"detect --strategy tuscan --strategy isolation: {len(tuscan)} tuscan orders",
            flush=True,
        )
        report = detect(
            recorder, strategies=["tuscan", "isolation"], seed=args.seed, group=args.group,
            jobs=args.jobs,
        )  # fmt: skip
        if recorder.orders.get("tuscan") != len(tuscan):
            raise SystemExit(
                f"detect ran {recorder.orders.get('tuscan')} of the {len(tuscan)} tuscan orders"
            )
        for kind in ("tuscan", "isolation", "original"):
            for order, failures in recorder.results.get(kind, []):
                agreement.check(order, failures, predictor.failures(order))
        found = set(report.od_ids)
        print(
            f"  detect: {report.stats.wall_seconds:.1f} s, {report.stats.orders_run} orders, "
            f"found {len(found & set(planted.od))}/{len(planted.od)} planted OD tests",
            flush=True,
        )

        # Pairs: a measured sample, then all of them if that is affordable.
        rng = random.Random(args.seed)
        sample = [rng.sample(suite.ids, 2) for _ in range(args.pair_sample)]
        stats = run_real(engine, sample, predictor, agreement)
        pairs_orders = gen.pairs_count(suite.ids)
        estimate = pairs_orders * stats.wall / len(sample)
        print(
            f"  pairs: {pairs_orders} orders, estimated {estimate:.0f} s from {len(sample)}",
            flush=True,
        )
        pairs_seen: Seen
        if estimate <= args.pairs_budget:
            all_pairs = run_real(engine, list(gen.pairs(suite.ids)), predictor, agreement)
            pairs_wall, measured, pairs_seen = all_pairs.wall, True, all_pairs.seen
            print(f"  pairs ran: {pairs_wall:.1f} s", flush=True)
        else:
            pairs_wall, measured = estimate, False
            pairs_seen = run_model(gen.pairs(suite.ids), predictor)

        # Random and random-reverse: real runs for a few seeds.
        def real_batch(batch: list[list[str]]) -> list[list[Optional[bool]]]:
            results = engine.run_many(batch)
            out = [real_failures(r) for r in results]
            for order, failures in zip(batch, out):
                agreement.check(order, failures, predictor.failures(order))
            return out

        real_seeds = list(range(1, args.real_seeds + 1))
        start = time.perf_counter()
        real_rand = random_recall(groups, real_seeds, planted, real_batch) if real_seeds else {}
        random_wall = time.perf_counter() - start
        print(f"  random orders ran: {random_wall:.1f} s", flush=True)

    model_seeds = list(range(1, args.model_seeds + 1))
    model_rand = random_recall(
        groups, model_seeds, planted, lambda b: [predictor.failures(o) for o in b]
    )
    tuscan_model = [
        planted.recall(
            run_model(gen.generate("tuscan", groups, random.Random(s)), predictor).detected()
        )
        for s in range(1, args.tuscan_model_seeds + 1)
    ]
    iso_seen = run_model(gen.isolation(suite.ids), predictor)
    tiso_model = [
        planted.recall(
            run_model(
                gen.generate("tuscan", groups, random.Random(s)),
                predictor,
                Seen(set(iso_seen.failed), set(iso_seen.passed)),
            ).detected()
        )
        for s in range(1, args.tuscan_model_seeds + 1)
    ]

    rows: list[list[object]] = []
    for strategy in gen.RANDOM_STRATEGIES:
        for cut in CUTS:
            rows.append([
                n, strategy, cut,
                mean_pct(real_rand.get((strategy, cut), [])), len(real_seeds),
                mean_pct(model_rand[(strategy, cut)]), len(model_seeds),
            ])  # fmt: skip
    tuscan_seen = recorder.seen["tuscan"]
    both = Seen(
        tuscan_seen.failed | recorder.seen["isolation"].failed,
        tuscan_seen.passed | recorder.seen["isolation"].passed,
    )
    rows.append(
        [
            n,
            "tuscan",
            len(tuscan),
            pct(planted.recall(tuscan_seen.detected())),
            1,
            mean_pct(tuscan_model),
            len(tuscan_model),
        ]
    )
    rows.append(
        [
            n,
            "tuscan + isolation",
            len(tuscan) + n,
            pct(planted.recall(both.detected())),
            1,
            mean_pct(tiso_model),
            len(tiso_model),
        ]
    )
    rows.append(
        [
            n,
            "pairs",
            pairs_orders,
            pct(planted.recall(pairs_seen.detected())) if measured else "-",
            1 if measured else 0,
            pct(planted.recall(run_model(gen.pairs(suite.ids), predictor).detected())),
            1,
        ]
    )

    figs = SizeFigures(
        n=n, planted=planted, groups=len(groups),
        tuscan_orders=len(tuscan), tuscan_execs=sum(len(o) for o in tuscan),
        tuscan_wall=recorder.wall.get("tuscan", 0.0),
        pairs_orders=pairs_orders, pairs_execs=2 * pairs_orders, pairs_wall=pairs_wall,
        pairs_measured=measured, pairs_sample=len(sample),
        detect_wall=report.stats.wall_seconds, detect_orders=report.stats.orders_run,
        detect_execs=report.stats.test_executions, found=found,
        recall_rows=rows, agreement=agreement, random_wall=random_wall,
        random_orders=len(gen.RANDOM_STRATEGIES) * len(real_seeds) * max(CUTS),
    )  # fmt: skip
    figs.notes += guarantee_lines(figs, tuscan_seen, both)
    return figs


def guarantee_lines(figs: SizeFigures, tuscan_seen: Seen, both: Seen) -> list[str]:
    """The 004 §5 guarantees, checked against the ground truth."""
    p = figs.planted
    sv = set(p.single_victims)
    sb = set(p.single_brittles)
    missed_sv = sorted(sv - tuscan_seen.detected())
    missed_sb = sorted(sb - both.detected())
    missed_report = sorted(set(p.od) - figs.found)
    lines = [
        f"single-polluter victims detected by the tuscan orders: "
        f"**{len(sv) - len(missed_sv)}/{len(sv)}**"
        + (f" (missed: {p.describe(missed_sv)})" if missed_sv else ""),
        f"single-state-setter brittles detected by tuscan + isolation: "
        f"**{len(sb) - len(missed_sb)}/{len(sb)}**"
        + (f" (missed: {p.describe(missed_sb)})" if missed_sb else ""),
        f"planted OD tests detected by tuscan + isolation: "
        f"{len(set(p.od) & both.detected())}/{len(p.od)}"
        + (
            f" (missed: {p.describe(set(p.od) - both.detected())})"
            if set(p.od) - both.detected()
            else ""
        ),
        f"planted OD tests in detect's report (search and confirmation, original order "
        f"included): {len(p.od) - len(missed_report)}/{len(p.od)}"
        + (f" (missed: {p.describe(missed_report)})" if missed_report else ""),
    ]
    extra = figs.found - set(p.od)
    lines.append(
        f"reported OD but not planted: {len(extra)}" + (f" ({sorted(extra)})" if extra else "")
    )
    return lines


# -- report -----------------------------------------------------------------------------


def cost_rows(figs: Sequence[SizeFigures]) -> list[list[object]]:
    rows: list[list[object]] = []
    for f in figs:
        rows.append(
            [
                f.n,
                "tuscan",
                f"{f.tuscan_orders:,}",
                f"{f.tuscan_execs:,}",
                f"{f.tuscan_wall:.1f}",
                "run (inside detect, --jobs 2 batches)",
            ]
        )
        how = (
            "run (all pairs)"
            if f.pairs_measured
            else f"estimated from {f.pairs_sample} sampled pair orders"
        )
        rows.append(
            [f.n, "pairs", f"{f.pairs_orders:,}", f"{f.pairs_execs:,}", f"{f.pairs_wall:.1f}", how]
        )
        rows.append(
            [
                f.n,
                "tuscan / pairs",
                pct(f.tuscan_orders / f.pairs_orders),
                pct(f.tuscan_execs / f.pairs_execs),
                pct(f.tuscan_wall / f.pairs_wall),
                "",
            ]
        )
    return rows  # fmt: skip


def render(figs: Sequence[SizeFigures], args: argparse.Namespace, total: float) -> str:
    largest = figs[-1]
    mism = sum(len(f.agreement.mismatches) for f in figs)
    checked = sum(f.agreement.checked for f in figs)
    body = [
        f"Generated suites (`generate_suite(n_tests=N, seed={SUITE_SEED})`), fork runner, "
        f"`--jobs {args.jobs}`, groups = `{args.group}` (orders keep each class, else "
        f"module, together), seed {args.seed}. "
        + "; ".join(
            f"{f.n} tests: {len(f.planted.od)} planted OD tests ({len(f.planted.single_victims)} "
            f"single-polluter victims, {len(f.planted.single_brittles)} single-state-setter "
            f"brittles), {f.groups} groups"
            for f in figs
        )
        + ".",
        "",
        "### Tuscan pair cover vs all pairs",
        "",
        table(["tests", "strategy", "orders", "test executions", "wall s", "how"], cost_rows(figs)),
        "",
        f"The paper reports Tuscan orders at {PAPER_ORDER_RATIO}% of the pair orders and "
        f"{PAPER_EXEC_RATIO}% of the test executions (004 §6, averaged over 121 modules); "
        f"the theoretical minimum of the executions is 50%. Pair orders and executions are "
        f"exact (n(n-1) orders of 2 tests). Tuscan's wall time is the time of its batches "
        f"inside `detect` (`--jobs` orders at a time); pairs run as one `run_many` call.",
        "",
        "### Recall of planted OD tests",
        "",
        "A planted OD test (victim or brittle) counts as detected when some order of the "
        "set fails it and some order passes it. *Real*: outcomes of real runs (one seed "
        "for the fixed sets; random: mean over seeds, min in brackets); *model*: the "
        "ground truth (`odmodel.fails`) over more seeds. Tuscan and pairs guarantee only "
        "OD tests with a single polluter or state-setter (004 §5); each suite also has a "
        "victim of a polluter group and a brittle of an ordered state-setter group.",
        "",
        table(
            ["tests", "strategy", "orders", "recall (real)", "seeds", "recall (model)", "seeds"],
            [row for f in figs for row in f.recall_rows],
        ),
        "",
        "Really run random orders took "
        + "; ".join(
            f"{f.random_wall:.0f} s for {f.random_orders} orders of {f.n} tests" for f in figs
        )
        + f" (`--jobs {args.jobs}`). "
        f"Real outcomes agreed with the ground truth on {checked - mism:,} of {checked:,} "
        f"test executions (ND tests excluded).",
        "",
        f"### Complete pair cover of {largest.n} tests (`detect` with tuscan + isolation)",
        "",
        f"`detect(engine, strategies=['tuscan', 'isolation'], jobs={args.jobs})` on the "
        f"{largest.n}-test suite: **{largest.detect_wall:.0f} s** wall "
        f"({largest.detect_wall / 60:.1f} min; target < 10 min), "
        f"{largest.detect_orders:,} orders, {largest.detect_execs:,} test executions "
        f"(search and confirmation).",
        "",
        *[f"- {line}" for line in largest.notes],
        "",
        *(
            line
            for f in figs[:-1]
            for line in [
                f"{f.n} tests: the same `detect` took {f.detect_wall:.1f} s, "
                f"{f.detect_orders:,} orders, {f.detect_execs:,} test executions.",
                *[f"- {x}" for x in f.notes],
                "",
            ]
        ),
        f"Whole benchmark: {total / 60:.1f} min.",
    ]
    return "\n".join(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated orders")
    parser.add_argument("--group", default="class", choices=["module", "class", "none"])
    parser.add_argument(
        "--real-seeds", type=int, default=3, help="seeds of really run random orders"
    )
    parser.add_argument(
        "--model-seeds", type=int, default=20, help="seeds of modelled random orders"
    )
    parser.add_argument("--tuscan-model-seeds", type=int, default=3)
    parser.add_argument(
        "--pair-sample", type=int, default=400, help="pair orders run to time pairs"
    )
    parser.add_argument(
        "--pairs-budget", type=float, default=180.0,
        help="run all pairs when the sample predicts at most this many seconds",
    )  # fmt: skip
    parser.add_argument("--no-doc", action="store_true", help="print only; leave the doc alone")
    args = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        figs = [bench_size(n, args, Path(tmp)) for n in sorted(args.sizes)]
    body = render(figs, args, time.perf_counter() - start)
    if not args.no_doc:
        write_section("Detection", body)
    print(body)


if __name__ == "__main__":
    main()
