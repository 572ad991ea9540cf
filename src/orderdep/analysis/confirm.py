"""Turning suspicious failures into confirmed findings: repeated runs, never guesses.

A test that failed in one order and passed in another is only a *suspect*. It is
order-dependent (OD) only if each of the two orders gives the same outcome every time it
runs; if its outcome changes within one and the same order it is non-deterministic (ND,
004 §1), whatever else was seen. The steps, for the orders detection ran:

1. Every test that failed in a search order runs alone once, all in one batch: the
   cheap check before any search (a suspect's shortening starts with it anyway). A test
   that failed in the original order (the first search order) and alone, and passed in
   no order seen, is *always failing* at once, with no shortening or re-runs: a suite
   with dozens of broken tests pays one order each. One that passed nowhere but passes
   alone is a suspect (a victim); one that failed alone but passed in some order is a
   suspect (a brittle). One that fails alone and passed nowhere but did not fail in the
   original order (it did not run there) is observed alone ``confirm_runs + 1`` times.
2. Each suspect's failing and passing orders are shortened cheaply (:class:`Shortening`):
   the test alone, then the tests before it that the other orders leave as candidates
   (:func:`narrowed`), else group testing over the tests before it in the recorded order
   (later tests cannot change a test's outcome, so the order is always cut right after
   it), down to the few tests the outcome needs.
3. Each kept order is observed ``confirm_runs + 1`` times in all (the run that showed it,
   earlier runs of the same order in the results store, and re-runs): first every kept
   order :data:`FIRST_LOOK` times, then each the rest. When the budget ends in that
   second round, a suspect whose orders were all seen at least :data:`FIRST_LOOK` times,
   always with the same outcome, is an OD test that says how often it was seen
   (:data:`~orderdep.core.finding.OBSERVED_KEY`); the others stay suspects.
4. Any test whose outcome differed between runs of one order, at one position, is ND.

Non-idempotent-outcome (NIO) suspects, from orders ``[t, t]``, are confirmed the same way:
every run must pass the first time and fail the second.

Orders go through :class:`OrderRunner` in batches, so the engine runs them in parallel.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from orderdep.analysis.shortening import Shortening, narrowed, stopped_note
from orderdep.core.outcomes import OrderResult, TestResult
from orderdep.core.report import ODFinding
from orderdep.engine.executor import Executor

OrderKey = tuple[str, ...]
#: Observations of every kept order before any gets its ``confirm_runs + 1``: the fewest
#: an OD test found when the budget ended is seen with (each order three times with the
#: same outcome; a test failing at random half of the time does that once in 64).
FIRST_LOOK = 3
Guide = Callable[[str, Sequence[str]], Optional[list[str]]]


class RunSource(Protocol):
    """Earlier runs of an order (the engine's results store)."""

    def runs_of(self, order: Sequence[str]) -> list[OrderResult]: ...


def failed(result: TestResult) -> Optional[bool]:
    """True for a failure, False for a pass, None for an outcome that says neither."""
    if result.outcome.is_failure:
        return True
    if result.outcome.is_pass:
        return False
    return None


class RunLog:
    """Every run of every order seen so far, plus the store's earlier runs (evidence).

    Runs are told apart by their store id, so a run this detection recorded is never
    counted twice when the store is read back. With :attr:`only` set (a runner's name),
    runs of other runners are no evidence: an unchecked fork runner's search orders
    point at suspects, and fresh processes confirm them.
    """

    def __init__(self, store: Optional[RunSource] = None) -> None:
        self.store = store
        self.only: Optional[str] = None
        self._runs: dict[OrderKey, list[OrderResult]] = {}

    def add(self, result: OrderResult) -> None:
        self._runs.setdefault(tuple(result.order), []).append(result)

    def orders(self) -> list[OrderKey]:
        """Every order this detection ran or looked up, in first-seen order."""
        return list(self._runs)

    def runs(self, order: Sequence[str]) -> list[OrderResult]:
        mine = self._runs.setdefault(tuple(order), [])
        earlier: list[OrderResult] = []
        if self.store is not None:
            seen = {r.run_id for r in mine if r.run_id is not None}
            earlier = [r for r in self.store.runs_of(order) if r.run_id not in seen]
        return [r for r in earlier + mine if self.only is None or r.runner == self.only]

    def outcomes(self, order: Sequence[str], position: int) -> list[bool]:
        """Failed (True) / passed (False) at ``position``, one entry per run that got there."""
        out = []
        for run in self.runs(order):
            if position < len(run.results) and run.results[position].test == order[position]:
                verdict = failed(run.results[position])
                if verdict is not None:
                    out.append(verdict)
        return out


class OrderRunner:
    """Runs orders through an executor ``jobs`` at a time, logging and counting each result."""

    def __init__(
        self,
        executor: Executor,
        log: RunLog,
        jobs: int = 1,
        on_result: Optional[Callable[[OrderResult], None]] = None,
    ) -> None:
        self.executor = executor
        self.log = log
        self.jobs = max(1, jobs)
        self.on_result = on_result
        self.orders_run = 0
        self.executions = 0

    def run(self, orders: Sequence[Sequence[str]]) -> list[OrderResult]:
        """Run every order (one ``run_many`` call, spread over the workers); results in
        input order."""
        return self.run_slice(orders) if orders else []

    def count(self, result: OrderResult) -> None:
        """Count ``result`` among the orders and test executions the command ran."""
        self.orders_run += 1
        self.executions += len(result.order)

    def run_slice(self, orders: Sequence[Sequence[str]]) -> list[OrderResult]:
        """Run ``orders`` at once (one ``run_many`` call)."""

        def done(_index: int, result: OrderResult) -> None:
            self.log.add(result)
            self.count(result)
            if self.on_result is not None:
                self.on_result(result)

        return self.executor.run_many([list(o) for o in orders], on_result=done)


@dataclass
class Verdicts:
    """What confirmation concluded."""

    od: list[ODFinding] = field(default_factory=list)
    nd: list[str] = field(default_factory=list)
    nio: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)
    #: The stop that ended the second round of observations (None: it ended), and the
    #: suspects it left undecided.
    cut: Optional[BaseException] = None
    undecided: list[str] = field(default_factory=list)


def _verdict(log: RunLog, order: Sequence[str], test: str, want_fail: bool) -> Optional[bool]:
    """Whether every run of ``order`` so far shows the wanted outcome (None: never run)."""
    seen = log.outcomes(order, list(order).index(test))
    if not seen:
        return None
    return all(v == want_fail for v in seen)


def shorten(runner: OrderRunner, todo: Sequence[Shortening]) -> None:
    """Advance every shortening in lockstep, one batch of attempts per round."""
    while True:
        batch: dict[OrderKey, list[str]] = {}
        for s in todo:
            while (attempt := s.next_order()) is not None:
                verdict = _verdict(runner.log, attempt, s.test, s.want_fail)
                if verdict is None:
                    batch[tuple(attempt)] = attempt
                    break
                s.saw(verdict)
        if not batch:
            return
        runner.run(list(batch.values()))


def observe(runner: OrderRunner, wanted: Sequence[tuple[Sequence[str], int]], runs: int) -> None:
    """Re-run each order until it has ``runs`` observations at the given position."""
    need: dict[OrderKey, int] = {}
    for order, position in wanted:
        missing = runs - len(runner.log.outcomes(order, position))
        key = tuple(order)
        need[key] = max(need.get(key, 0), missing)
    batch = [list(key) for key, n in need.items() for _ in range(n)]
    runner.run(batch)


def _shortest(orders: Sequence[list[str]]) -> list[str]:
    """The shortest order (the earliest among equals)."""
    return min(orders, key=len)


def nd_tests(log: RunLog) -> set[str]:
    """Tests whose outcome differed between runs of one order at one position."""
    out: set[str] = set()
    for order in log.orders():
        runs = log.runs(order)  # read once: the store may hold many runs
        if len(runs) < 2:
            continue
        for position, test in enumerate(order):
            seen = set()
            for run in runs:
                if position < len(run.results) and run.results[position].test == test:
                    seen.add(failed(run.results[position]))
            if len(seen - {None}) > 1:
                out.add(test)
    return out


Seen = dict[str, list[list[str]]]


def seen_in(search: Sequence[OrderResult]) -> tuple[Seen, Seen]:
    """The search orders each test failed in, and those it passed in."""
    fails: Seen = {}
    passes: Seen = {}
    for result in search:
        for r in result.results:
            verdict = failed(r)
            if verdict is not None:
                (fails if verdict else passes).setdefault(r.test, []).append(result.order)
    return fails, passes


def longest_durations(search: Sequence[OrderResult]) -> dict[str, float]:
    """Each test's longest run, in seconds, over the ``search`` orders."""
    out: dict[str, float] = {}
    for result in search:
        for r in result.results:
            out[r.test] = max(out.get(r.test, 0.0), r.duration)
    return out


def failed_in(result: Optional[OrderResult]) -> set[str]:
    return set() if result is None else {r.test for r in result.results if failed(r) is True}


def confirm(
    runner: OrderRunner,
    search: Sequence[OrderResult],
    nio_search: Sequence[OrderResult] = (),
    confirm_runs: int = 5,
    only: Optional[Collection[str]] = None,
    guide: Optional[Guide] = None,
    partners: Collection[str] = (),
    stop: tuple[type[BaseException], ...] = (),
) -> Verdicts:
    """Confirm what the ``search`` orders (and ``[t, t]`` orders in ``nio_search``) suggest.

    See the module docstring for the steps. Every order named in a finding was observed
    ``confirm_runs + 1`` times with the same outcome for the test. ``only`` limits the
    work to these suspects (see :func:`confirm_in_chunks`). ``guide`` gives, for a
    suspect and a recorded order, the tests before it worth trying first (the writers of
    what it read, :mod:`orderdep.analysis.guided`). ``partners`` are the tests the orders
    of OD tests confirmed earlier needed (their polluters and state-setters): those that
    ran before a suspect in its recorded order are tried before anything else, since one
    polluter often has many victims.
    """
    log = runner.log
    fails, passes = seen_in(search)
    durations = longest_durations(search)
    if only is not None:
        fails = {t: orders for t, orders in fails.items() if t in only}

    # 1. Each test alone, once (one batch). Failed everywhere it ran: does it pass alone?
    observe(runner, [([t], 0) for t in fails], 1)
    first_failures = failed_in(search[0] if search else None)
    fail_only = [t for t in fails if t not in passes]
    suspects_af, always = [], []
    for t in fail_only:
        if False in log.outcomes([t], 0):
            passes[t] = [[t]]
        elif t in first_failures:
            always.append(t)  # the original order and alone: nothing to search
        else:
            suspects_af.append(t)
    # A test already seen changing its outcome within one order is ND: no need to go on.
    known_nd = nd_tests(log)
    suspects = [t for t in fails if t in passes and t not in known_nd]
    suspects_af = [t for t in suspects_af if t not in known_nd]

    # 2. Shorten the failing and the passing order of each suspect.
    shortenings = []
    for t in suspects:
        for want_fail, seen, other in ((True, fails[t], passes[t]), (False, passes[t], fails[t])):
            recorded = _shortest(seen)
            hints = narrowed(t, recorded, seen, other, durations)
            guess = guide(t, recorded) if guide is not None else None
            if guess is not None and guess not in hints:  # writers of what it read first
                hints.insert(0, guess)
            known = partners_before(t, recorded, partners)
            if known and known not in hints:  # a polluter of earlier victims first of all
                hints.insert(0, known)
            shortenings.append(Shortening(t, want_fail, recorded, hints))
    shorten(runner, shortenings)

    # 3. Observe every order a finding will name confirm_runs + 1 times.
    nio_suspects = []
    for result in nio_search:
        outcomes = [failed(r) for r in result.results]
        mine = only is None or result.order[0] in only
        if mine and len(outcomes) == 2 and outcomes[0] is False and outcomes[1] is True:
            nio_suspects.append(result.order[0])
    known_nd = nd_tests(log)
    wanted: list[tuple[Sequence[str], int]] = []
    for s in shortenings:
        assert s.found is not None
        if s.test not in known_nd:
            wanted.append((s.found, s.found.index(s.test)))
    wanted += [([t], 0) for t in suspects_af]
    wanted += [([t, t], 1) for t in nio_suspects]
    asked = confirm_runs + 1
    observe(runner, wanted, min(asked, FIRST_LOOK))
    out = Verdicts()
    try:
        observe(runner, wanted, asked)
    except stop as exc:
        out.cut = exc

    def looks(order: Sequence[str], test: str) -> int:
        return len(log.outcomes(order, list(order).index(test)))

    # 4. Verdicts; ND (outcome changed within one order) overrides everything else.
    chosen = {(s.test, s.want_fail): s.found or s.recorded for s in shortenings}
    stopped: dict[str, list[tuple[str, str]]] = {}
    for s in shortenings:
        if s.stopped:
            stopped.setdefault(s.test, []).append((s.which, stopped_note(s)))
    for t in suspects:
        fail_order, pass_order = chosen[(t, True)], chosen[(t, False)]
        runs = min(looks(fail_order, t), looks(pass_order, t))
        if out.cut is not None and runs < asked:
            out.undecided.append(t)  # decided below only when its runs agree
            if runs < min(asked, FIRST_LOOK):
                continue
        if _verdict(log, fail_order, t, True) and _verdict(log, pass_order, t, False):
            finding = ODFinding(t, failing_order=fail_order, passing_order=pass_order)
            for which, sentence in stopped.get(t, []):
                finding.say_needs_many_tests(which, sentence)
            if runs < asked and out.cut is not None:
                finding.say_observed(runs, asked)
            out.od.append(finding)
    out.undecided = [t for t in out.undecided if t not in {f.test for f in out.od}]
    if out.cut is not None:  # the rest of what was asked, once the budget allows
        out.undecided += [t for t in suspects_af if looks([t], t) < asked]
        out.undecided += [t for t in nio_suspects if looks([t, t], t) < asked]
    left = set(out.undecided)
    decided_af = [t for t in suspects_af if t not in left]
    out.always_failing = always + [t for t in decided_af if all(log.outcomes([t], 0))]
    for t in nio_suspects:
        firsts, seconds = log.outcomes([t, t], 0), log.outcomes([t, t], 1)
        if t not in left and not any(firsts) and all(seconds):
            out.nio.append(t)
    nd = nd_tests(log)
    out.od = [f for f in out.od if f.test not in nd]
    out.always_failing = [t for t in out.always_failing if t not in nd]
    out.nio = [t for t in out.nio if t not in nd]
    out.nd = sorted(nd)
    return out


def partners_before(test: str, recorded: Sequence[str], partners: Collection[str]) -> list[str]:
    """The ``partners`` that ran before ``test`` in ``recorded``, in their order."""
    if not partners:
        return []
    prefix = recorded[: list(recorded).index(test)]
    return [t for t in prefix if t in partners and t != test]
