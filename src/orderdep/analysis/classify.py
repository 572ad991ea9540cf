"""Classify detected OD tests and find the tests they depend on (004 §4.1, iFixFlakies).

For each OD test of a report (a test seen failing in one order and passing in another):

1. **Kind** (004 §4.1, after iFixFlakies): run it alone ``alone_runs`` times (10, the
   industry practice the paper cites). Always passes: a *victim*; always fails: a
   *brittle*; both: an ND test, moved to ``nd_tests``.
2. **Precondition**: the recorded failing (victim) / passing (brittle) order, cut after
   the test, must reproduce its outcome; if it does not, the test is flaky in one and
   the same order, so ND.
3. **Partners** by group testing (:mod:`orderdep.analysis.partners`): single polluters of
   a victim, single state-setters of a brittle, each confirmed by a fresh run of its own
   pair ``[t, test]``. If the single polluters do not explain why the failing order fails,
   iFixFlakies' Minimizer (003 §2) runs :func:`ddmin` over that order's prefix (single
   polluters removed) to find a *polluter group*, re-run to verify it; likewise an ordered
   *state-setter group* in the passing order of a brittle none of whose single
   state-setters ran before it.
4. **Cleaners** of each polluter (and group) ``p``: tests ``c`` for which
   ``[*p, c, victim]`` passes, by group testing; at least one per polluter, all of them
   with ``all_cleaners``.
5. **Verification**: the resulting :class:`~orderdep.core.odmodel.ODSpec` must predict
   the recorded failing and passing orders; a disagreement is kept as a note in the
   finding (``"classify_notes"``).
6. **Flake rates** (004 §4.2-4.4) from :func:`orderdep.core.flakerate.flake_rates`,
   seeded from the report's seed and the test id, so one seed reproduces them.

The steps run *phase by phase over all OD tests*, most valuable first: the kind of every
test, then one partner of each, then all partners and groups, then cleaners, then flake
rates. A :class:`~orderdep.analysis.budget.Budget` bounds the whole; when it runs out
(or on Ctrl-C) the report keeps what is known and each finding lists what is not done
under ``"unfinished"`` (e.g. ``{"cleaners": "not searched (budget)"}``); classifying
again picks those findings up, and the results store replays the orders already run.

Runs of the same order for the same test are cached (the group searches re-ask for
sets and pairs); confirmations always run afresh.
"""

from __future__ import annotations

import copy
import difflib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional

from orderdep.analysis.budget import UNFINISHED_KEY, Budget, BudgetedExecutor, BudgetExhausted
from orderdep.analysis.classify_marks import kind_from_orders, mark_unfinished, phases_done
from orderdep.analysis.classify_steps import (
    CLEANERS_KEY,
    NOTES_KEY,
    PHASES,
    Counts,
    Item,
    Known,
    Runner,
    Say,
    cleaners_step,
    kind_step,
    partners_step,
    summary,
    verify,
)
from orderdep.core.finding import FLAKE_RATE_BOUND_KEY, FLAKE_RATE_KEYS
from orderdep.core.flakerate import DEFAULT_SAMPLES, flake_rates
from orderdep.core.report import DETECT_COMMAND, ODFinding, Report
from orderdep.core.suite import GroupLevel, Suite
from orderdep.engine.executor import Executor
from orderdep.errors import ReportError, UsageError

DEFAULT_ALONE_RUNS = 10
# Key of the report's stats saying classification stopped before the end, and why.
STOPPED_KEY = "classify_stopped"


@dataclass(frozen=True)
class ClassifyProgress:
    """One step of the classification, for progress display."""

    test: str
    index: int  # 1-based position of ``test`` among the tests being classified
    total: int
    step: str  # kind | precondition | polluters | cleaners | polluter-group | state-setters
    #            | state-setter-group | verify | flake-rate | done | stopped
    message: str
    orders_run: int = 0  # orders classification has run so far (all tests)
    orders_left: Optional[int] = None  # estimated orders left in this step
    phase: str = ""  # the phase of :data:`PHASES` running (kinds of all tests come first)


ProgressCallback = Callable[[ClassifyProgress], None]


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
    budget: Optional[Budget] = None,
    all_cleaners: bool = False,
    jobs: int = 1,
    phases: Sequence[str] = PHASES,
    resume: bool = False,
    known: Optional[Known] = None,
) -> Report:
    """A copy of ``report`` with its OD tests classified and explained (see module doc).

    ``phases`` (a prefix of :data:`PHASES`) stops after those: ``("kind", "partner")`` is
    what a repair needs (its kind and one partner); what it leaves is marked unfinished
    ("partly searched (PHASE only)") for a later ``classify`` to complete.

    ``tests`` limits the work to these OD tests (always re-classified); by default every
    OD test not classified yet, or not finished (every one with ``redo``). ``seed``
    (default the report's) seeds the flake-rate sampling; ``group_level`` defines the
    groups of "grouped" orders. ``budget`` bounds the work (see the module docstring);
    ``jobs`` is how many orders the executor runs at once. ``resume`` (without ``redo``)
    skips the phases a finding's earlier classification finished (:func:`phases_done`)
    instead of running them again. ``known`` keeps the outcomes asked for across calls
    (a confirmation still runs once per call), and what confirmation saw of the orders a
    finding names (:attr:`~.classify_steps.Known.seen`): those runs count toward its
    runs alone, and an order seen with the outcome the finding gives it every time needs
    no confirming run.
    """
    if alone_runs < 1:
        raise UsageError(f"alone_runs must be at least 1, got {alone_runs!r}.")
    out = copy.deepcopy(report)
    todo = _select(out, tests, redo)
    suite = executor.suite
    _check_suite(out, todo, suite)
    candidates = [t for t in out.tests if t in suite]
    seed = out.stats.seed if seed is None else seed
    budget = budget if budget is not None else Budget()
    bounded = BudgetedExecutor(executor, budget, jobs)
    counts = Counts()
    known = known if known is not None else Known()
    start = time.perf_counter()
    items = [
        Item(
            f,
            i,
            Runner(
                bounded,
                f.test,
                counts,
                known.cache.setdefault(f.test, {}),
                known.confirmed.setdefault(f.test, {}),
                seen=known.seen.get(f.test, {}),
            ),
            [t for t in candidates if t != f.test],
            before=copy.deepcopy(f),
            done=phases_done(f) if resume and not redo else set(),
        )
        for i, f in enumerate(todo, 1)
    ]
    shown = _Shown(on_progress, counts, len(items))
    for item in items:
        item.runner.on_order = shown.tick
    steps: dict[str, Callable[[Item, Say], None]] = {
        "kind": lambda it, say: kind_step(it, alone_runs, say),
        "partner": lambda it, say: partners_step(it, say, limit=1),
        "partners": lambda it, say: partners_step(it, say, limit=None),
        "cleaners": lambda it, say: cleaners_step(it, say, all_cleaners),
        "flake-rate": lambda it, say: _rates(
            it, say, suite, candidates, seed, flake_samples, group_level, budget
        ),
    }
    if tuple(phases) != PHASES[: len(phases)] or not phases:
        raise UsageError(f"phases must be a prefix of {PHASES!r}, got {tuple(phases)!r}")
    try:
        for phase in phases:
            shown.phase = phase
            for item in items:
                if item.nd or phase in item.done:
                    continue
                if not item.done >= set(PHASES[: PHASES.index(phase)]):
                    continue

                def say(step: str, message: str, left: Optional[int] = None,
                        _it: Item = item) -> None:  # fmt: skip
                    shown.step(_it, step, message, left)

                steps[phase](item, say)
                item.done.add(phase)
                if phase == PHASES[-1]:
                    say("done", summary(item.finding))
    except BudgetExhausted:
        pass
    except KeyboardInterrupt as exc:  # between orders (flake rates): stop the same way
        budget.interrupted(exc)
    reason = budget.stop_reason
    for item in items:
        if item.nd:
            out.od_tests.remove(item.finding)
            if item.finding.test not in out.nd_tests:
                out.nd_tests.append(item.finding.test)
            message = f"{item.finding.test} is non-deterministic (ND), not order-dependent"
            shown.step(item, "done", message)
        elif reason is not None and len(item.done) < len(PHASES):
            if "kind" not in item.done:
                kind_from_orders(item)
            mark_unfinished(item, reason)
            shown.step(item, "stopped", f"{item.finding.test}: not finished ({reason})")
        elif len(item.done) < len(PHASES):
            mark_unfinished(item, f"{' and '.join(phases)} only")
    out.stats.orders_run += counts.orders_run
    out.stats.test_executions += counts.test_executions
    out.stats.wall_seconds += time.perf_counter() - start
    out.stats.extras.pop(STOPPED_KEY, None)
    if reason is not None:
        out.stats.extras[STOPPED_KEY] = reason
    return out


class _Shown:
    """Sends progress: each step as it starts, then again after every order it runs
    (with one order fewer left), so a display is never left without news."""

    def __init__(self, on_progress: Optional[ProgressCallback], counts: Counts, total: int):
        self.on_progress = on_progress
        self.counts = counts
        self.total = total
        self.last: Optional[tuple[Item, str, str, Optional[int]]] = None
        self.phase = ""

    def step(self, item: Item, step: str, message: str, left: Optional[int] = None) -> None:
        self.last = (item, step, message, left)
        if self.on_progress is not None:
            self.on_progress(
                ClassifyProgress(
                    item.finding.test, item.index, self.total, step, message,
                    self.counts.orders_run, left, self.phase,
                )
            )  # fmt: skip

    def tick(self) -> None:
        if self.last is not None:
            item, step, message, left = self.last
            self.step(item, step, message, None if left is None else max(0, left - 1))


def _rates(
    item: Item,
    say: Say,
    suite: Suite,
    candidates: Sequence[str],
    seed: int,
    samples: int,
    group_level: GroupLevel,
    budget: Budget,
) -> None:
    """Steps 5-6: verification against the recorded orders, then flake rates."""
    say("verify", "checking the findings against the recorded orders", 0)
    verify(item.finding)
    budget.check()
    say("flake-rate", "computing flake rates", 0)
    fill_flake_rates(item.finding, suite, candidates, seed, samples, group_level)
    item.finding.extras.pop(UNFINISHED_KEY, None)


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
    # Cleaners found with one looked for per polluter: others may exist, and each would
    # make more random orders pass, so the rates are upper bounds.
    bound = finding.extras.get(CLEANERS_KEY) == "one per polluter" and any(
        finding.cleaners.values()
    )
    if bound:
        finding.extras[FLAKE_RATE_BOUND_KEY] = True
    else:
        finding.extras.pop(FLAKE_RATE_BOUND_KEY, None)


# --- helpers ---------------------------------------------------------------------------


def _select(report: Report, tests: Optional[Sequence[str]], redo: bool) -> list[ODFinding]:
    if tests is None:
        return [f for f in report.od_tests if redo or f.kind is None or UNFINISHED_KEY in f.extras]
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


__all__ = [
    "DEFAULT_ALONE_RUNS",
    "NOTES_KEY",
    "ClassifyProgress",
    "ProgressCallback",
    "classify",
    "fill_flake_rates",
]
