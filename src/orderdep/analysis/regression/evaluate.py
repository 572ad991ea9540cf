"""Evaluating dependent-test-aware regression testing on one project (002 §4, Tables 8-9).

For every algorithm (T1-T4, S1-S6, P1, P2, and the dependency-aware ``groups``
parallelisation) the unenhanced order(s) and the enhanced order(s) run through an
executor, and two things are compared:

* **OD-test failures** (§4.3, Table 8): the tests that fail in an algorithm's orders but
  pass in the original order, counted once per algorithm however many of its orders
  they fail in (the paper's "unique OD tests that fail"). With ``repeat`` > 1 every
  order runs that many times and a test counts only if it fails every time (the paper
  runs three times).
* **Time** (§4.4, Table 9): an order's time is the sum of its tests' durations; a
  parallel schedule's time is its longest machine. Like the paper, the slowdown is
  computed only over orders that enhancement changed ("=" when it changed none). Next to
  the measured time an *estimate* from the coverage run's durations is given, which is
  free of timing noise.

Inputs follow §2.3 and §4.1: coverage and durations come from one earlier run
(:mod:`.coverage`); tests that no longer exist are dropped and new tests ignored.

**Selection needs a change.** With a real change (``git diff`` of a base revision,
:func:`orderdep.core.selection.changed_lines`) each S algorithm selects once. Without
one, :func:`sample_changes` simulates ``n`` versions: each modifies one function that
some test covers, chosen with a seeded ``random.Random`` (functions in files that hold
no tests are preferred, since a change to a test's own code selects only that test);
every covered line of the function counts as changed. Failures are then counted over
all simulated versions, as the paper counts them over all subsequent versions.

``groups`` has no unenhanced form of its own; its unenhanced column is P2's, so its row
shows what scheduling whole dependency groups buys over P2.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from orderdep.analysis.regression.coverage import CoverageData
from orderdep.core import parallelization, prioritization, selection
from orderdep.core.depsfile import Dependency
from orderdep.core.enhance import enhance_order, enhance_parallel, enhance_selection
from orderdep.core.outcomes import OrderResult
from orderdep.engine.executor import Executor
from orderdep.errors import UsageError

PRIORITIZATION = ("T1", "T2", "T3", "T4")
SELECTION = ("S1", "S2", "S3", "S4", "S5", "S6")
PARALLELIZATION = ("P1", "P2", "groups")
ALGORITHMS = PRIORITIZATION + SELECTION + PARALLELIZATION
TECHNIQUES = {
    "prioritization": PRIORITIZATION,
    "selection": SELECTION,
    "parallelization": PARALLELIZATION,
}

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Change:
    """One version's change: the changed lines of the old version, per file."""

    label: str
    lines: Mapping[str, AbstractSet[int]]


@dataclass
class Schedule:
    """One unenhanced/enhanced pair: a list of orders (one per machine, or just one)."""

    label: str  # e.g. "T1", "S3 change 2", "P2 k=4"
    unenhanced: list[list[str]]
    enhanced: list[list[str]]

    @property
    def changed(self) -> bool:
        return self.unenhanced != self.enhanced


@dataclass
class AlgorithmResult:
    """One row of the evaluation (Tables 8 and 9 for one algorithm)."""

    algorithm: str
    technique: str
    schedules: int = 0
    changed: int = 0  # schedules enhancement changed
    executions: int = 0  # test executions of the unenhanced schedules
    added: int = 0  # extra test executions the enhanced schedules run
    unenhanced_failures: list[str] = field(default_factory=list)
    enhanced_failures: list[str] = field(default_factory=list)
    unenhanced_seconds: float = 0.0  # measured, over changed schedules only
    enhanced_seconds: float = 0.0
    unenhanced_estimate: float = 0.0  # from the coverage run's durations, changed only
    enhanced_estimate: float = 0.0

    @property
    def reduction(self) -> Optional[float]:
        """Fraction fewer OD-test failures (None when the unenhanced orders had none)."""
        u = len(self.unenhanced_failures)
        return None if u == 0 else (u - len(self.enhanced_failures)) / u

    @property
    def slowdown(self) -> Optional[float]:
        """Measured fractional slowdown of changed schedules (None: nothing changed)."""
        return _ratio(self.enhanced_seconds, self.unenhanced_seconds, self.changed)

    @property
    def estimated_slowdown(self) -> Optional[float]:
        return _ratio(self.enhanced_estimate, self.unenhanced_estimate, self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "technique": self.technique,
            "schedules": self.schedules,
            "changed": self.changed,
            "executions": self.executions,
            "added": self.added,
            "unenhanced_failures": self.unenhanced_failures,
            "enhanced_failures": self.enhanced_failures,
            "reduction": self.reduction,
            "unenhanced_seconds": round(self.unenhanced_seconds, 6),
            "enhanced_seconds": round(self.enhanced_seconds, 6),
            "slowdown": self.slowdown,
            "estimated_slowdown": self.estimated_slowdown,
        }


def _ratio(enhanced: float, unenhanced: float, changed: int) -> Optional[float]:
    if changed == 0 or unenhanced <= 0:
        return None
    return (enhanced - unenhanced) / unenhanced


@dataclass
class Evaluation:
    """Every algorithm's row plus what the original order did."""

    tests: list[str]
    original_failures: list[str]  # failing in the original order: not OD failures
    rows: list[AlgorithmResult]
    machines: list[int]
    changes: list[str]
    orders_run: int = 0

    def technique_totals(self) -> dict[str, tuple[int, int]]:
        """Technique -> (unenhanced, enhanced) OD-test failure counts summed over its rows."""
        out: dict[str, tuple[int, int]] = {}
        for technique, labels in TECHNIQUES.items():
            rows = [r for r in self.rows if r.algorithm in labels]
            if rows:
                out[technique] = (
                    sum(len(r.unenhanced_failures) for r in rows),
                    sum(len(r.enhanced_failures) for r in rows),
                )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "orderdep.evaluation/1",
            "tests": len(self.tests),
            "original_failures": self.original_failures,
            "machines": self.machines,
            "changes": self.changes,
            "orders_run": self.orders_run,
            "algorithms": [r.to_json() for r in self.rows],
            "techniques": {
                t: {"unenhanced_failures": u, "enhanced_failures": e}
                for t, (u, e) in self.technique_totals().items()
            },
        }


# --- simulated changes ------------------------------------------------------------------------


def sample_changes(coverage: CoverageData, n: int, rng: random.Random) -> list[Change]:
    """``n`` simulated versions, each changing one covered function (see module docs)."""
    if n < 1:
        return []
    covered: dict[tuple[str, str], set[int]] = {}
    ranges = coverage.function_ranges
    lines_by_file: dict[str, set[int]] = {}
    for per in coverage.statements.values():
        for f, lines in per.items():
            lines_by_file.setdefault(f, set()).update(lines)
    for f, file_lines in sorted(lines_by_file.items()):
        for line in sorted(file_lines):
            (func,) = selection.changed_functions({f: {line}}, {f: ranges.get(f, [])})
            covered.setdefault((f, func[1]), set()).add(line)
    if not covered:
        raise UsageError(
            "the coverage data records no covered code, so no change can be simulated; "
            "check `orderdep coverage --source` or give a real change with --base REV"
        )
    test_files = {t.split("::", 1)[0] for t in coverage.tests}
    candidates = sorted(k for k in covered if k[0] not in test_files) or sorted(covered)
    picks = rng.sample(candidates, min(n, len(candidates)))
    return [
        Change(f"change {i + 1}: {f}::{q}", {f: frozenset(covered[(f, q)])})
        for i, (f, q) in enumerate(picks)
    ]


# --- building the schedules -------------------------------------------------------------------


def build_schedules(
    algorithm: str,
    tests: Sequence[str],
    coverage: CoverageData,
    deps: Sequence[Dependency],
    *,
    machines: Sequence[int] = (2,),
    changes: Sequence[Change] = (),
) -> list[Schedule]:
    """The unenhanced and enhanced schedules of ``algorithm`` on ``tests`` (original order)."""
    label = algorithm if algorithm == "groups" else algorithm.upper()
    stmt: Mapping[str, AbstractSet[Hashable]] = coverage.statement_coverage()
    func: Mapping[str, AbstractSet[Hashable]] = coverage.function_coverage()
    if label in PRIORITIZATION:
        u = prioritization.run_algorithm(label, tests, stmt, func)
        return [Schedule(label, [u], [enhance_order(u, deps, all_tests=tests)])]
    if label in SELECTION:
        out = []
        for change in changes:
            u = selection.run_algorithm(
                label, tests, stmt, change.lines, functions=coverage.function_ranges
            )
            if u:
                e = enhance_selection(u, deps, tests)
                out.append(Schedule(f"{label} {change.label}", [u], [e]))
        return out
    if label in PARALLELIZATION:
        out = []
        durations = {t: coverage.durations.get(t, 0.0) for t in tests}
        for k in machines:
            base = "P2" if label == "groups" else label
            split = parallelization.run_algorithm(base, tests, k, durations)
            if label == "groups":
                enhanced = parallelization.parallelize_groups(
                    tests, deps, durations, k, all_tests=tests
                )
            else:
                enhanced = enhance_parallel(split, deps, tests)
            out.append(Schedule(f"{label} k={k}", split, enhanced))
        return out
    raise UsageError(f"unknown algorithm {algorithm!r}; choose from {list(ALGORITHMS)!r}")


# --- running ----------------------------------------------------------------------------------


def evaluate(
    executor: Executor,
    coverage: CoverageData,
    deps: Sequence[Dependency],
    *,
    algorithms: Sequence[str] = ALGORITHMS,
    machines: Sequence[int] = (2, 4, 8),
    changes: Sequence[Change] = (),
    repeat: int = 1,
    progress: Optional[Progress] = None,
) -> Evaluation:
    """Run every algorithm's unenhanced and enhanced schedules; compare (002 Tables 8-9)."""
    if repeat < 1:
        raise UsageError(f"repeat must be at least 1, got {repeat!r}")
    note = progress or (lambda message: None)
    suite = executor.suite
    tests = [t for t in coverage.tests if t in suite]  # §4.1: gone tests skipped, new ignored
    if not tests:
        raise UsageError(
            "none of the tests in the coverage data exist in the suite any more; "
            "re-run `orderdep coverage`"
        )
    per_algorithm = {
        a: build_schedules(a, tests, coverage, deps, machines=machines, changes=changes)
        for a in algorithms
    }
    orders: dict[tuple[str, ...], None] = {tuple(tests): None}
    for schedules in per_algorithm.values():
        for s in schedules:
            for order in [*s.unenhanced, *s.enhanced]:
                if order:
                    orders[tuple(order)] = None
    unique = [list(o) for o in orders]
    note(f"running {len(unique)} distinct orders x {repeat} ({len(tests)} tests)")
    results = executor.run_many([o for o in unique for _ in range(repeat)])
    by_order: dict[tuple[str, ...], list[OrderResult]] = {}
    for order, result in zip([o for o in unique for _ in range(repeat)], results):
        by_order.setdefault(tuple(order), []).append(result)
    original = by_order[tuple(tests)]
    passing = _always_passing(original)
    original_failures = [t for t in tests if t not in passing]
    estimate = {t: coverage.durations.get(t, 0.0) for t in tests}
    rows = []
    for algorithm, schedules in per_algorithm.items():
        rows.append(_row(algorithm, schedules, by_order, passing, estimate))
    return Evaluation(
        tests=tests,
        original_failures=original_failures,
        rows=rows,
        machines=list(machines),
        changes=[c.label for c in changes],
        orders_run=len(results),
    )


def _always_passing(runs: Sequence[OrderResult]) -> set[str]:
    out: Optional[set[str]] = None
    for run in runs:
        ok = {r.test for r in run.results if r.outcome.is_pass}
        out = ok if out is None else out & ok
    return out or set()


def _consistent_failures(runs: Sequence[OrderResult]) -> set[str]:
    out: Optional[set[str]] = None
    for run in runs:
        bad = set(run.failed_tests())
        out = bad if out is None else out & bad
    return out or set()


def _technique(algorithm: str) -> str:
    for technique, labels in TECHNIQUES.items():
        if algorithm in labels:
            return technique
    return ""


def _row(
    algorithm: str,
    schedules: Sequence[Schedule],
    by_order: Mapping[tuple[str, ...], Sequence[OrderResult]],
    passing: AbstractSet[str],
    estimate: Mapping[str, float],
) -> AlgorithmResult:
    row = AlgorithmResult(algorithm, _technique(algorithm), schedules=len(schedules))
    failures: dict[str, set[str]] = {"u": set(), "e": set()}
    for s in schedules:
        times: dict[str, float] = {}
        estimates: dict[str, float] = {}
        for key, machines in (("u", s.unenhanced), ("e", s.enhanced)):
            spans, est = [], []
            for order in machines:
                if not order:
                    continue
                runs = by_order[tuple(order)]
                failures[key] |= _consistent_failures(runs) & passing
                spans.append(sum(sum(r.duration for r in run.results) for run in runs) / len(runs))
                est.append(sum(estimate.get(t, 0.0) for t in order))
            times[key] = max(spans, default=0.0)
            estimates[key] = max(est, default=0.0)
        row.executions += sum(len(m) for m in s.unenhanced)
        row.added += sum(len(m) for m in s.enhanced) - sum(len(m) for m in s.unenhanced)
        if s.changed:
            row.changed += 1
            row.unenhanced_seconds += times["u"]
            row.enhanced_seconds += times["e"]
            row.unenhanced_estimate += estimates["u"]
            row.enhanced_estimate += estimates["e"]
    row.unenhanced_failures = sorted(failures["u"])
    row.enhanced_failures = sorted(failures["e"])
    return row
