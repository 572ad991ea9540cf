"""``orderdep why``: from one failing order to the tests that make a test fail in it.

The steps, each checked before the next (detect-test-pollution's preconditions, extended
to brittles and groups):

1. *Reproduce.* Run the failing order up to the test with the engine's runner (fork
   first); when the test passes, run it in fresh processes. When it still passes, the
   failure does not reproduce here and nothing is called order-dependent
   (:class:`NotReproducedError`): a nondeterministic test, state shared between xdist
   workers, or the environment of the failing run.
2. *Confirm.* Run the test alone ``alone_runs`` times. Mixed outcomes make it
   nondeterministic (ND); a nondeterministic failure in the order itself is caught by
   the search (answers that change) or by step 4. Passing alone makes it a *victim* of tests
   before it; failing alone a *brittle* that needs a state-setter the order lacked.
3. *Minimise.* For a victim, adaptive group testing over the prefix
   (:func:`~orderdep.core.prefix_search.minimal_prefix_subset`: binary search on where
   the prefix is cut, one needed test at a time, then delta debugging on what was
   found), so a single polluter among ``n`` tests costs about ``log2 n`` orders, and
   what remains is a 1-minimal polluter group (every member needed); a failure that
   needs more than :data:`~orderdep.core.prefix_search.GROUP_CAP` tests together keeps
   the last order seen to fail, marked not minimal. For a brittle, the passing order is
   the test after the tests before it in collection order, else after every other test
   in collection order, else after one other test (``[s, t]``, every ``s``); it is
   minimised the same way to its state-setter (set).
4. *Verify.* The minimal failing and passing orders give their outcomes
   ``VERIFY_RUNS`` more times each, in turns; otherwise the test is reported ND, never
   order-dependent.

Every order goes through the engine, so with a store and a job name a second ``why``
replays the recorded outcomes instead of running them again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from orderdep.core.ddmin import DDMinPreconditionError, DDStats
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.prefix_search import GROUP_CAP, TooManyNeeded, minimal_prefix_subset
from orderdep.core.volatile import VOLATILE_CAUSE, VOLATILE_FIX
from orderdep.engine.executor import Executor
from orderdep.errors import UnknownTestsError, UsageError

ALONE_RUNS = 3
VERIFY_RUNS = 5
Progress = Callable[[str], None]

#: Why a failure seen elsewhere may not reproduce here (said whenever it does not).
LIKELY_CAUSES = (
    "a nondeterministic (ND) test, state shared between xdist workers or with other "
    "processes, or the environment of the failing run (time, network, files, env vars)"
)


_UNSTABLE = "the same order gave different outcomes while minimising"


class NotReproducedError(UsageError):
    """The test passes in the given order under every runner: nothing to explain."""


@dataclass
class WhyResult:
    """What ``why`` learnt about one test in one failing order."""

    test: str
    given: list[str]  # the failing order, cut after the test
    verdict: str  # victim | brittle | nd | always-fails
    runner: str  # the runner the failure reproduced with
    culprits: list[str] = field(default_factory=list)  # polluter (group) / setter (set)
    minimal: bool = True  # False: more tests were needed together than the search takes
    failing_order: list[str] = field(default_factory=list)  # minimal, ends with the test
    passing_order: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    orders_run: int = 0
    reused: int = 0

    @property
    def found(self) -> bool:
        return self.verdict in ("victim", "brittle")


class _Orders:
    """Runs orders ending with the test; counts them; remembers outcomes for the search."""

    def __init__(self, executor: Executor, test: str, say: Progress) -> None:
        self.executor = executor
        self.test = test
        self.say = say
        self.count = 0
        self.memo: dict[tuple[str, ...], Outcome] = {}

    def outcome(self, prefix: Sequence[str], *, fresh: bool = False) -> Outcome:
        order = (*prefix, self.test)
        if not fresh and order in self.memo:
            return self.memo[order]
        self.count += 1
        result = self.executor.run(list(order))
        try:
            outcome = result.outcome_of(self.test)
        except KeyError:  # the order stopped before the test (a crash, a timeout)
            outcome = Outcome.NOT_RUN
        self.memo.setdefault(order, outcome)
        return outcome

    def fails(self, prefix: Sequence[str], *, fresh: bool = False) -> bool:
        return self.outcome(prefix, fresh=fresh).is_failure

    def passes(self, prefix: Sequence[str], *, fresh: bool = False) -> bool:
        return self.outcome(prefix, fresh=fresh).is_pass


def cut_order(order: Sequence[str], test: str) -> list[str]:
    """``order`` up to and including the first run of ``test`` (a usage error if absent)."""
    if test not in order:
        raise UsageError(
            f"{test!r} is not in the failing order ({len(order)} tests); check the test id "
            "(`orderdep collect` lists them) or give the order of the run in which it failed"
        )
    return list(order[: list(order).index(test) + 1])


def check_known(executor: Executor, order: Sequence[str]) -> None:
    """A one-line usage error when the order names tests the project no longer has."""
    try:
        executor.suite.require(order)
    except UnknownTestsError as exc:
        first = exc.unknown[0]
        close = exc.suggestions.get(first) or []
        hint = f" (now {close[0]!r}?)" if close else ""
        if exc.cause:  # ids that change between processes: a new run does not help
            raise UsageError(
                f"the failing order names {len(exc.unknown)} test(s) this collection names "
                f"differently, e.g. {first!r}{hint}: likely tests with {VOLATILE_CAUSE}, "
                f"which an order recorded in another process cannot name; {VOLATILE_FIX}"
            ) from None
        raise UsageError(
            f"the failing order names {len(exc.unknown)} test(s) this project does not have, "
            f"e.g. {first!r}{hint}; they were renamed or removed since that run: run the "
            "tests again and give the new order (for --last: run pytest again)"
        ) from None


def why(
    executor: Executor,
    test: str,
    order: Sequence[str],
    *,
    progress: Optional[Progress] = None,
    alone_runs: int = ALONE_RUNS,
) -> WhyResult:
    """Explain why ``test`` fails in ``order`` (see the module docstring)."""
    say = progress or (lambda message: None)
    given = cut_order(order, test)
    check_known(executor, given)
    runs = _Orders(executor, test, say)
    prefix = given[:-1]
    runner = str(getattr(executor, "runner", "model"))
    say(f"running the failing order ({len(prefix)} tests, then {test}), {runner} runner")
    failed = runs.fails(prefix)
    if not failed and runner in ("fork", "prefork"):
        say(f"it passes under the {runner} runner; trying fresh processes (subprocess runner)")
        executor.use_subprocess()  # type: ignore[attr-defined]
        runs.memo.clear()
        failed = runs.fails(prefix)
    if not failed:
        raise NotReproducedError(
            f"{test!r} passes in the given order ({len(prefix)} tests before it) under the "
            f"fork runner and in fresh processes: the failure does not reproduce here, so it "
            f"is not shown to be order-dependent; likely causes: {LIKELY_CAUSES}"
        )
    out = WhyResult(test, given, "nd", str(getattr(executor, "runner", runner)))
    say(f"reproduced; running {test} alone {alone_runs} times")
    alone = [runs.outcome([], fresh=True) for _ in range(alone_runs)]
    passes_alone = sum(o.is_pass for o in alone)
    if 0 < passes_alone < alone_runs:
        out.notes.append(
            f"it passed in {passes_alone} of {alone_runs} runs alone: nondeterministic (ND), "
            "not order-dependent"
        )
    elif passes_alone == alone_runs:
        _victim(runs, out, prefix, say)
    else:
        _brittle(runs, out, executor.suite.ids, say)
    out.orders_run = runs.count
    out.reused = int(getattr(executor, "reused", 0))
    return out


def _victim(runs: _Orders, out: WhyResult, prefix: list[str], say: Progress) -> None:
    if not prefix:  # fails first in the order yet passes alone: the order is not the cause
        out.notes.append("it fails when it runs first but passes alone: nondeterministic (ND)")
        return
    say(f"passes alone: a victim; searching the {len(prefix)} tests before it")
    stats = DDStats()
    try:
        group = minimal_prefix_subset(prefix, runs.fails, stats=stats, cap=GROUP_CAP)
    except DDMinPreconditionError:
        out.notes.append(f"{_UNSTABLE}: nondeterministic (ND), not order-dependent")
        return
    except TooManyNeeded as many:
        group, out.minimal = many.kept, False
        out.notes.append(
            f"it fails only after more than {many.cap} of the tests before it together "
            f"(such as a shared random generator's state): the search stopped at "
            f"{len(group)} tests, which are not a minimal group"
        )
    say(f"minimal: {len(group)} test(s) after {stats.calls} orders; verifying")
    if not _stable(runs, fail=group, pass_=[]):
        out.notes.append(
            f"the minimal failing order {[*group, runs.test]!r} and the test alone did not "
            "keep their outcomes: nondeterministic (ND), not order-dependent"
        )
        return
    out.verdict, out.culprits = "victim", group
    out.failing_order, out.passing_order = [*group, runs.test], [runs.test]


def _brittle(runs: _Orders, out: WhyResult, ids: Sequence[str], say: Progress) -> None:
    test = runs.test
    say("fails alone: a brittle; looking for an order in which it passes")
    before = list(ids[: list(ids).index(test)]) if test in ids else []
    others = [t for t in ids if t != test]
    start = next((p for p in (before, others) if p and runs.passes(p)), [])
    if not start:
        say(f"not after the other tests in collection order; trying {len(others)} pairs")
        orders = [[t, test] for t in others]
        results = runs.executor.run_many(orders)
        runs.count += len(orders)
        for t, r in zip(others, results):
            runs.memo.setdefault((t, test), _outcome(r, test))
        start = next(([t] for t in others if runs.memo[(t, test)].is_pass), [])
        if not start:
            out.verdict = "always-fails"
            out.notes.append(
                "it fails alone, after the other tests in collection order and after each "
                "other test alone: a failing test, not order-dependent"
            )
            return
    say(f"passes after {len(start)} test(s); searching them for its state-setter(s)")
    try:
        setters = minimal_prefix_subset(start, runs.passes, cap=GROUP_CAP)
    except DDMinPreconditionError:
        out.notes.append(f"{_UNSTABLE}: nondeterministic (ND), not order-dependent")
        return
    except TooManyNeeded as many:
        setters, out.minimal = many.kept, False
        out.notes.append(
            f"it passes only after more than {many.cap} other tests together: the search "
            f"stopped at {len(setters)} tests, which are not a minimal set"
        )
    say(f"minimal: {len(setters)} state-setter(s); verifying")
    if not _stable(runs, fail=[], pass_=setters):
        out.notes.append(
            f"the minimal passing order {[*setters, test]!r} and the test alone did not "
            "keep their outcomes: nondeterministic (ND), not order-dependent"
        )
        return
    out.verdict, out.culprits = "brittle", setters
    out.failing_order, out.passing_order = [test], [*setters, test]


def _stable(runs: _Orders, *, fail: Sequence[str], pass_: Sequence[str]) -> bool:
    """The minimal orders give their outcomes ``VERIFY_RUNS`` times more each, in turns
    (a coin-flip test rarely passes this by chance: 2 ** -(2 * VERIFY_RUNS))."""
    return all(
        runs.fails(fail, fresh=True) and runs.passes(pass_, fresh=True) for _ in range(VERIFY_RUNS)
    )


def _outcome(result: OrderResult, test: str) -> Outcome:
    try:
        return result.outcome_of(test)
    except KeyError:
        return Outcome.NOT_RUN
