"""Classify detected OD tests and find the tests they depend on (004 §4.1, iFixFlakies).

For each OD test of a report (a test seen failing in one order and passing in another):

1. **Kind** (004 §4.1, after iFixFlakies): run it alone ``alone_runs`` times (10, the
   industry practice the paper cites). Always passes: a *victim*; always fails: a
   *brittle*; both: an ND test, moved to ``nd_tests``.
2. **Precondition**: the recorded failing (victim) / passing (brittle) order, cut after
   the test, must reproduce its outcome; if it does not, the test is flaky in one and
   the same order, so ND.
3. **Victims**: single polluters by running ``[t, v]`` for every other test ``t``
   (004 §4.1, all pairs in one ``run_many`` so the engine can parallelise); each found
   pair is re-run to confirm it. Cleaners of each polluter ``p`` by triples
   ``[p, c, v]``. If the single polluters (with their cleaners) do not explain why the
   failing order fails, iFixFlakies' Minimizer (003 §2) runs :func:`ddmin` over that
   order's prefix (single polluters removed) to find a *polluter group*, re-runs the
   minimal sequence to verify it, and finds its cleaners by ``[*group, c, v]``.
4. **Brittles**: single state-setters by ``[t, b]`` (confirmed likewise); if none is in
   the passing order's prefix, ``ddmin`` over that prefix finds an ordered
   *state-setter group*, verified by a re-run.
5. **Verification**: the resulting :class:`~orderdep.core.odmodel.ODSpec` must predict
   the recorded failing and passing orders; a disagreement is kept as a note in the
   finding (``"classify_notes"``).
6. **Flake rates** (004 §4.2-4.4) from :func:`orderdep.core.flakerate.flake_rates`,
   seeded from the report's seed and the test id, so one seed reproduces them.

Runs of the same order for the same test are cached (``ddmin`` re-asks for pairs the
pair phase ran); confirmations always run afresh.
"""

from __future__ import annotations

import copy
import difflib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from orderdep.core.ddmin import ddmin
from orderdep.core.flakerate import DEFAULT_SAMPLES, flake_rates
from orderdep.core.odmodel import fails_at, group_key
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.report import DETECT_COMMAND, FLAKE_RATE_KEYS, ODFinding, Report
from orderdep.core.suite import GroupLevel, Suite
from orderdep.engine.executor import Executor
from orderdep.errors import ReportError, UsageError

DEFAULT_ALONE_RUNS = 10
NOTES_KEY = "classify_notes"


@dataclass(frozen=True)
class ClassifyProgress:
    """One step of the classification, for progress display."""

    test: str
    index: int  # 1-based position of ``test`` among the tests being classified
    total: int
    step: str  # kind | precondition | polluters | cleaners | polluter-group | state-setters
    #            | state-setter-group | verify | flake-rate | done
    message: str


ProgressCallback = Callable[[ClassifyProgress], None]


@dataclass
class _Counts:
    orders_run: int = 0
    test_executions: int = 0


@dataclass
class _Runner:
    """Runs orders that end with ``test`` and reports its outcome; caches by order."""

    executor: Executor
    test: str
    counts: _Counts
    cache: dict[tuple[str, ...], Outcome] = field(default_factory=dict)

    def outcomes(self, prefixes: Sequence[Sequence[str]], fresh: bool = False) -> list[Outcome]:
        """The test's outcome after each prefix, from one ``run_many`` call.

        Cached orders are not run again unless ``fresh`` (confirmations, alone runs).
        """
        orders = [(*p, self.test) for p in prefixes]
        todo = orders if fresh else list(dict.fromkeys(o for o in orders if o not in self.cache))
        results = self.executor.run_many([list(o) for o in todo]) if todo else []
        self.counts.orders_run += len(todo)
        self.counts.test_executions += sum(len(o) for o in todo)
        got = [self._outcome(r) for r in results]
        for order, outcome in zip(todo, got):
            self.cache.setdefault(order, outcome)
        return got if fresh else [self.cache[o] for o in orders]

    def _outcome(self, result: OrderResult) -> Outcome:
        try:
            return result.outcome_of(self.test)
        except KeyError:  # the order was cut short before the test
            return Outcome.NOT_RUN

    def failed(self, prefix: Sequence[str]) -> bool:
        return self.outcomes([prefix])[0].is_failure

    def passed(self, prefix: Sequence[str]) -> bool:
        return self.outcomes([prefix])[0].is_pass


def classify(
    executor: Executor,
    report: Report,
    tests: Optional[Sequence[str]] = None,
    on_progress: Optional[ProgressCallback] = None,
    *,
    alone_runs: int = DEFAULT_ALONE_RUNS,
    redo: bool = False,
    seed: Optional[int] = None,
    flake_samples: int = DEFAULT_SAMPLES,
    group_level: GroupLevel = "module",
) -> Report:
    """A copy of ``report`` with its OD tests classified and explained (see module doc).

    ``tests`` limits the work to these OD tests (always re-classified); by default every
    OD test not classified yet (every one with ``redo``). ``seed`` (default the report's)
    seeds the flake-rate sampling; ``group_level`` defines the groups of "grouped" orders.
    """
    if alone_runs < 1:
        raise UsageError(f"alone_runs must be at least 1, got {alone_runs!r}.")
    out = copy.deepcopy(report)
    todo = _select(out, tests, redo)
    suite = executor.suite
    _check_suite(out, todo, suite)
    candidates = [t for t in out.tests if t in suite]
    seed = out.stats.seed if seed is None else seed
    counts = _Counts()
    start = time.perf_counter()
    for index, finding in enumerate(todo, 1):

        def progress(step: str, message: str, _t: str = finding.test, _i: int = index) -> None:
            if on_progress is not None:
                on_progress(ClassifyProgress(_t, _i, len(todo), step, message))

        runner = _Runner(executor, finding.test, counts)
        if not _classify_finding(runner, finding, candidates, alone_runs, progress):
            out.od_tests.remove(finding)
            if finding.test not in out.nd_tests:
                out.nd_tests.append(finding.test)
            progress("done", f"{finding.test} is non-deterministic (ND), not order-dependent")
            continue
        progress("flake-rate", "computing flake rates")
        fill_flake_rates(finding, suite, candidates, seed, flake_samples, group_level)
        progress("done", _summary(finding))
    out.stats.orders_run += counts.orders_run
    out.stats.test_executions += counts.test_executions
    out.stats.wall_seconds += time.perf_counter() - start
    return out


def _classify_finding(
    runner: _Runner,
    finding: ODFinding,
    candidates: Sequence[str],
    alone_runs: int,
    progress: Callable[[str, str], None],
) -> bool:
    """Fill ``finding`` in place; False when the test turns out ND (not order-dependent)."""
    test = finding.test
    progress("kind", f"running {test} alone {alone_runs} times")
    alone = runner.outcomes([[]] * alone_runs, fresh=True)
    passes = sum(o.is_pass for o in alone)
    if 0 < passes < alone_runs:
        return False
    _reset(finding)
    finding.kind = "victim" if passes == alone_runs else "brittle"
    others = [t for t in candidates if t != test]
    if finding.kind == "victim":
        prefix = _prefix(finding.failing_order, test)
        if prefix is not None:
            progress("precondition", "re-running the failing order")
            if not runner.outcomes([prefix], fresh=True)[0].is_failure:
                return False
        _find_polluters(runner, finding, others, prefix, progress)
    else:
        prefix = _prefix(finding.passing_order, test)
        if prefix is not None:
            progress("precondition", "re-running the passing order")
            if not runner.outcomes([prefix], fresh=True)[0].is_pass:
                return False
        _find_state_setters(runner, finding, others, prefix, progress)
    if not finding.to_spec().related_tests() - {test}:
        _note(finding, f"no {'polluter' if finding.kind == 'victim' else 'state-setter'} found")
    progress("verify", "checking the findings against the recorded orders")
    _verify(finding)
    return True


def _find_polluters(
    runner: _Runner,
    finding: ODFinding,
    others: Sequence[str],
    prefix: Optional[list[str]],
    progress: Callable[[str, str], None],
) -> None:
    progress("polluters", f"running {len(others)} pairs [t, victim]")
    found = _confirmed(runner, others, want_failure=True)
    finding.polluters = found
    for p in found:
        progress("cleaners", f"running {len(others) - 1} triples [{p}, c, victim]")
        finding.cleaners[p] = _cleaners(runner, [p], others)
    if prefix is None or fails_at(finding.to_spec(), prefix):
        return
    # No single polluter explains the failing order: look for a polluter group in it.
    items = [t for t in prefix if t not in set(found)]
    progress("polluter-group", f"delta debugging over a prefix of {len(items)} tests")
    if not runner.failed(items):
        _note(finding, "the failing order fails only with its single polluters; no group found")
        return
    group = ddmin(items, runner.failed)
    if len(group) < 2 or not runner.outcomes([group], fresh=True)[0].is_failure:
        _note(finding, f"the minimal failing sequence {group!r} did not reproduce")
        return
    finding.polluter_groups.append(group)
    progress("cleaners", f"running triples [{' + '.join(group)}, c, victim]")
    finding.cleaners[group_key(group)] = _cleaners(runner, group, others)


def _find_state_setters(
    runner: _Runner,
    finding: ODFinding,
    others: Sequence[str],
    prefix: Optional[list[str]],
    progress: Callable[[str, str], None],
) -> None:
    progress("state-setters", f"running {len(others)} pairs [t, brittle]")
    finding.state_setters = _confirmed(runner, others, want_failure=False)
    if prefix is None or not fails_at(finding.to_spec(), prefix):
        return
    # No single state-setter ran before the brittle in its passing order: find the group.
    progress("state-setter-group", f"delta debugging over a prefix of {len(prefix)} tests")
    group = ddmin(prefix, runner.passed)
    if len(group) < 2 or not runner.outcomes([group], fresh=True)[0].is_pass:
        _note(finding, f"the minimal passing sequence {group!r} did not reproduce")
        return
    finding.state_setter_groups.append(group)


def _confirmed(runner: _Runner, others: Sequence[str], want_failure: bool) -> list[str]:
    """Tests ``t`` for which ``[t, test]`` fails (passes), confirmed by a second run."""

    def hit(o: Outcome) -> bool:
        return o.is_failure if want_failure else o.is_pass

    first = runner.outcomes([[t] for t in others])
    hits = [t for t, o in zip(others, first) if hit(o)]
    again = runner.outcomes([[t] for t in hits], fresh=True)
    return [t for t, o in zip(hits, again) if hit(o)]


def _cleaners(runner: _Runner, polluter: Sequence[str], others: Sequence[str]) -> list[str]:
    """Tests ``c`` for which ``[*polluter, c, victim]`` passes (004 §4.1 triples)."""
    pool = [c for c in others if c not in polluter]
    outcomes = runner.outcomes([[*polluter, c] for c in pool])
    return [c for c, o in zip(pool, outcomes) if o.is_pass]


def _verify(finding: ODFinding) -> None:
    """The model built must predict the recorded orders (else keep a note)."""
    spec = finding.to_spec()
    for order, should_fail, name in (
        (finding.failing_order, True, "failing"),
        (finding.passing_order, False, "passing"),
    ):
        prefix = _prefix(order, finding.test)
        if prefix is not None and fails_at(spec, prefix) != should_fail:
            _note(
                finding,
                f"the found {finding.kind} relations do not explain the recorded {name} order",
            )


def fill_flake_rates(
    finding: ODFinding,
    suite: Suite,
    candidates: Sequence[str],
    seed: int,
    samples: int = DEFAULT_SAMPLES,
    group_level: GroupLevel = "module",
) -> None:
    """Set ``finding.flake_rate`` (004 §4.2-4.4) from its spec; seeded by seed and test id."""
    groups = list(suite.groups(group_level, ids=candidates).values())
    rng = random.Random(f"{seed}:{finding.test}")
    rates = flake_rates(finding.to_spec(), groups, rng, samples=samples)
    finding.flake_rate = {k: rates[k].rate if k in rates else None for k in FLAKE_RATE_KEYS}


# --- helpers ---------------------------------------------------------------------------


def _select(report: Report, tests: Optional[Sequence[str]], redo: bool) -> list[ODFinding]:
    if tests is None:
        return [f for f in report.od_tests if redo or f.kind is None]
    od = report.od_ids
    unknown = [t for t in dict.fromkeys(tests) if t not in od]
    if unknown:
        if not od:
            raise UsageError(
                f"the report has no OD tests, so {unknown[0]!r} cannot be classified; "
                f"run `{DETECT_COMMAND}` to find some."
            )
        lines = [f"{len(unknown)} test id(s) are not OD tests of this report:"]
        for t in unknown:
            close = difflib.get_close_matches(t, od, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            lines.append(f"  {t!r}{hint}")
        lines.append("The report's OD tests are:")
        lines += [f"  {t}" for t in od]
        raise UsageError("\n".join(lines))
    wanted = set(tests)
    return [f for f in report.od_tests if f.test in wanted]


def _check_suite(report: Report, todo: Sequence[ODFinding], suite: Suite) -> None:
    """Every test the classification will run must still be in the collected suite."""
    for finding in todo:
        missing = suite.unknown([finding.test, *finding.failing_order, *finding.passing_order])
        if missing:
            raise ReportError(
                f"the report's finding for {finding.test!r} names test(s) the suite no longer "
                f"has: {', '.join(repr(m) for m in missing[:5])}; the report is out of date, "
                f"re-run `{DETECT_COMMAND}`."
            )


def _prefix(order: Sequence[str], test: str) -> Optional[list[str]]:
    """The tests before the last occurrence of ``test`` in ``order`` (None if absent)."""
    positions = [i for i, t in enumerate(order) if t == test]
    return list(order[: positions[-1]]) if positions else None


def _reset(finding: ODFinding) -> None:
    finding.polluters, finding.polluter_groups, finding.cleaners = [], [], {}
    finding.state_setters, finding.state_setter_groups = [], []
    finding.flake_rate = dict.fromkeys(FLAKE_RATE_KEYS)
    finding.extras.pop(NOTES_KEY, None)


def _note(finding: ODFinding, message: str) -> None:
    notes = finding.extras.setdefault(NOTES_KEY, [])
    if message not in notes:
        notes.append(message)


def _summary(finding: ODFinding) -> str:
    if finding.kind == "victim":
        return (
            f"{finding.test} is a victim: {len(finding.polluters)} polluter(s), "
            f"{len(finding.polluter_groups)} polluter group(s)"
        )
    return (
        f"{finding.test} is a brittle: {len(finding.state_setters)} state-setter(s), "
        f"{len(finding.state_setter_groups)} state-setter group(s)"
    )


__all__ = [
    "DEFAULT_ALONE_RUNS",
    "ClassifyProgress",
    "ProgressCallback",
    "classify",
    "fill_flake_rates",
]
