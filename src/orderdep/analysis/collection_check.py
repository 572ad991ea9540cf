"""Tests that fail when pytest collects only some files: what ``pytest FILE`` shows.

Every order orderdep searches runs with the whole suite collected, as shuffled runs and
xdist workers do, so every test module's import-time code has run before the first
test: a ``sys.path`` insert, a registry filled when a module is imported, a
``sys.modules`` entry replaced. A test that needs such a side effect passes in all of
those orders and fails when a user runs ``pytest tests/test_x.py`` or ``pytest ID``,
which collect only the files named. That is an order dependence of the suite as real as
any other, and no whole-suite order can show it.

This check runs each test file as ``pytest FILE`` runs it, in a fresh process
(:meth:`~orderdep.engine.plain.PlainRunner.run_collecting`), its tests in the original
order, the files with the fewest tests first (:func:`file_runs`; several files in one
run when each alone does not fit the budget). Each test that fails there is run alone
the same way; one that fails alone too and passes alone with the whole suite collected
is a brittle of the collection (:func:`collection_brittles`). Its state-setter is a test
of the file whose collection it needs, found by halving the other files; the finding
records which files each of its orders collects
(:data:`~orderdep.core.finding.COLLECTED_KEY`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Optional, Protocol

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_groups import Pace, group_size, pace_of, spread
from orderdep.analysis.fidelity_partial import finished_prefix
from orderdep.core.odmodel import Kind
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.report import COLLECTED_KEY, COLLECTION_CHECK_KEY, ODFinding

#: The whole suite collected (a finding's passing order without a state-setter file).
SUITE = "suite"
#: The report's ``stats.extras`` key: {"files", "run", "found"} of the check.
STATS_KEY = COLLECTION_CHECK_KEY


class Collecting(Protocol):
    """Runs an order in a pytest that collects only the paths given."""

    def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult: ...


def file_of(test: str) -> str:
    return test.split("::", 1)[0]


def files_in_order(ids: Sequence[str]) -> list[str]:
    """The test files of ``ids``, in the order their first tests come."""
    return list(dict.fromkeys(file_of(t) for t in ids))


def _outcome(result: OrderResult, test: str) -> Optional[Outcome]:
    seen = [r.outcome for r in result.results if r.test == test]
    return seen[-1] if seen else None


def fails_in(result: OrderResult, test: str) -> bool:
    outcome = _outcome(result, test)
    return outcome is not None and outcome.is_failure


def passes_in(result: OrderResult, test: str) -> bool:
    outcome = _outcome(result, test)
    return outcome is not None and outcome.is_pass


@dataclass
class FileRuns:
    """What running each file as ``pytest FILE`` showed."""

    files: int  # test files in the suite
    run: int = 0  # files run before the budget ended
    failing: dict[str, list[str]] = field(default_factory=dict)  # file -> its failed tests
    passed: set[str] = field(default_factory=set)  # tests that passed in their file's run
    seconds: list[float] = field(default_factory=list)  # each run's wall time
    most: int = 1  # the most files one run collected (1: each file alone)

    def run_seconds(self) -> float:
        """What a run of one test is expected to cost: the quickest file run (a fresh
        pytest's start-up and one file's collection; the mean counts files' slow tests)."""
        return min(self.seconds, default=0.0)

    @property
    def complete(self) -> bool:
        return self.run == self.files


def _ran(
    result: OrderResult, paths: Sequence[str], tests: Mapping[str, Sequence[str]]
) -> tuple[OrderResult, list[str]]:
    """Of a run killed before its end, the files whose tests all ran to an end, and the
    run cut to their tests (the test killed and those after it did not run)."""
    ended = set(result.order[: finished_prefix(result)])
    kept = [p for p in paths if all(t in ended for t in tests[p])]
    mine = {t for p in kept for t in tests[p]}
    results = [r for r in result.results if r.test in mine]
    cut = OrderResult([r.test for r in results], results, runner=result.runner,
                      wall_seconds=result.wall_seconds, interrupted=True)  # fmt: skip
    return cut, kept


def _fits(budget: Budget, seconds: float) -> bool:
    left = budget.left()
    return not budget.stopped and (left is None or left >= seconds)


def files_smallest_first(ids: Sequence[str]) -> list[str]:
    """The test files of ``ids``, those with the fewest tests first (the original order
    among equals): a file's run costs about what its tests take, so within its share of
    the budget the check runs as many files as it can."""
    files = files_in_order(ids)
    count = {f: 0 for f in files}
    for t in ids:
        count[file_of(t)] += 1
    return sorted(files, key=lambda f: count[f])


def _expected(pace: Optional[Pace], tests: dict[str, list[str]], paths: list[str]) -> float:
    """What a run of ``paths`` is expected to cost (nothing known before the first)."""
    return pace.cost(1, sum(len(tests[p]) for p in paths)) if pace is not None else 0.0


def file_runs(runner: Collecting, ids: Sequence[str], budget: Budget) -> FileRuns:
    """Each test file of ``ids`` with only itself collected, its tests in ``ids``' order,
    the smallest files first (:func:`files_smallest_first`), while ``budget`` lasts (a
    run is started only when it is expected to fit). When each file alone does not fit,
    a run collects several files (:mod:`~orderdep.analysis.collection_groups`); a test
    failing there is then one whose needed file had another run. A run killed as the
    budget ended (its result ``interrupted``) counts the files whose tests all ran."""
    queue = files_smallest_first(ids)
    out = FileRuns(files=len(queue))
    if len(queue) < 2:  # one file: `pytest FILE` collects what every order collects
        out.run = out.files
        return out
    tests: dict[str, list[str]] = {path: [] for path in queue}
    for t in ids:
        tests[file_of(t)].append(t)
    done: list[OrderResult] = []
    while queue:
        pace = pace_of(done)
        left = budget.left()
        size = group_size(len(queue), sum(len(tests[p]) for p in queue), left, pace)
        paths = spread(queue, size)
        while len(paths) > 1 and not _fits(budget, _expected(pace, tests, paths)):
            paths.pop()  # the largest: a run that fits does more than one that cannot
        if not _fits(budget, _expected(pace, tests, paths)):
            break
        chosen = set(paths)
        order = [t for t in ids if file_of(t) in chosen]
        result = runner.run_collecting(order, paths)
        if result.interrupted:  # killed as the budget ended: the files that ran count
            result, paths = _ran(result, paths, tests)
            if not paths:
                break
            order = result.order
        done.append(result)
        queue = [p for p in queue if p not in paths]
        out.run += len(paths)
        out.most = max(out.most, len(paths))
        out.seconds.append(result.wall_seconds)
        for path in paths:
            failed = [t for t in tests[path] if fails_in(result, t)]
            if failed:
                out.failing[path] = failed
        out.passed.update(t for t in order if passes_in(result, t))
    return out


@dataclass
class CollectionRuns:
    """Runs of single tests with chosen files collected, within a budget."""

    runner: Collecting
    ids: Sequence[str]
    budget: Budget
    cost: float  # seconds a run is expected to take

    def run(self, order: Sequence[str], paths: Sequence[str]) -> Optional[OrderResult]:
        if not _fits(self.budget, self.cost):
            return None
        result = self.runner.run_collecting(order, paths)
        return None if result.interrupted else result  # killed as the budget ended

    def alone(self, path: str, tests: Sequence[str], failing: bool) -> list[str]:
        """The tests that fail (``failing``; else pass) alone with only their file
        collected. A file that fails to collect fails every test alone: one run says so
        for all of them."""
        kept: list[str] = []
        for test in tests:
            result = self.run([test], [path])
            if result is None:
                break
            if (fails_in if failing else passes_in)(result, test):
                kept.append(test)
                last = result.results[-1] if result.results else None
                if failing and last is not None and last.message.startswith("error collecting"):
                    return list(tests)
        return kept

    def file_needed(self, test: str, own: str, others: list[str], passing: bool) -> Optional[str]:
        """One of ``others`` that, collected before ``own``, makes ``test`` pass (fail,
        when not ``passing``) alone, found by halving ``others`` (which together do);
        None when no single file does or time ran out."""
        shows = passes_in if passing else fails_in
        pool = others
        while len(pool) > 1:
            half, rest = pool[: len(pool) // 2], pool[len(pool) // 2 :]
            result = self.run([test], [*half, own])
            if result is None:
                return None
            if shows(result, test):
                pool = half
                continue
            result = self.run([test], [*rest, own])
            if result is None or not shows(result, test):
                return None  # it needs files of both halves
            pool = rest
        return pool[0] if pool else None

    def first_test(self, path: str) -> str:
        return next(t for t in self.ids if file_of(t) == path)

    def partner(
        self, path: str, tests: list[str], passing: bool
    ) -> tuple[Optional[str], list[str]]:
        """The first test of the one other file whose collection with ``path`` makes the
        first of ``tests`` pass (fail, when not ``passing``) alone, and those of
        ``tests`` that do so after it, only its file and ``path`` collected."""
        others = [f for f in files_in_order(self.ids) if f != path]
        needed = self.file_needed(tests[0], path, others, passing)
        if needed is None:
            return None, []
        first = self.first_test(needed)
        result = self.run([first, *tests], [needed, path])
        shows = passes_in if passing else fails_in
        return first, [t for t in tests if result is not None and shows(result, t)]


def collected_finding(test: str, kind: Kind, path: str, partner: Optional[str]) -> ODFinding:
    """``test``'s finding: alone, only ``path`` (its file) collected, it fails (a brittle)
    or passes (a victim); after ``partner``, only their files collected, the other way
    (no partner: alone, the whole suite collected)."""
    finding = ODFinding(test, kind, failing_order=[test], passing_order=[test])
    pair: object = SUITE
    if partner is not None:
        pair = [file_of(partner), path]
        if kind == "brittle":
            finding.passing_order, finding.state_setters = [partner, test], [partner]
        else:
            finding.failing_order, finding.polluters = [partner, test], [partner]
    alone = [path]
    said = (
        {"failing": alone, "passing": pair}
        if kind == "brittle"
        else {"failing": pair, "passing": alone}
    )
    finding.extras[COLLECTED_KEY] = said
    return finding


def collection_brittles(
    runner: Collecting,
    ids: Sequence[str],
    runs: FileRuns,
    budget: Budget,
    skip: Sequence[str] = (),
) -> list[ODFinding]:
    """The tests of ``runs.failing`` (but ``skip``: tests found already, or failing in
    every order) that fail alone with only their file collected and pass alone with the
    whole suite collected, each seen twice each way, with the state-setter found, while
    ``budget`` lasts."""
    files = files_in_order(ids)
    checks = CollectionRuns(runner, ids, budget, runs.run_seconds())
    found: list[ODFinding] = []
    left_out = set(skip)
    for path, failing in runs.failing.items():
        tests = [t for t in failing if t not in left_out]
        kept = checks.alone(path, tests, failing=True) if tests else []
        whole = checks.run(kept, files) if kept else None
        real = [t for t in kept if whole is not None and passes_in(whole, t)]
        if real:  # each seen failing alone once more: a flaky test rarely does it twice
            real = checks.alone(path, real, failing=True)
        if not real:
            continue
        setter_test, helped = checks.partner(path, real, passing=True)
        rest = [t for t in real if t not in helped]
        whole = checks.run(rest, files) if rest else None  # passing a second time
        for test in real:
            partner = setter_test if test in helped else None
            if partner is not None or (whole is not None and passes_in(whole, test)):
                found.append(collected_finding(test, "brittle", path, partner))
    return found


__all__ = [
    "STATS_KEY",
    "SUITE",
    "Collecting",
    "CollectionRuns",
    "FileRuns",
    "collected_finding",
    "collection_brittles",
    "fails_in",
    "file_of",
    "file_runs",
    "files_in_order",
    "passes_in",
]
