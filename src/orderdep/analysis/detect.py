"""Detection: run orders of the suite, then confirm which tests are order-dependent.

The search runs the original order first (the baseline every other order is compared
with; DTDetector's setting, 001 §VI), then each requested strategy of
:mod:`orderdep.core.orders`, plus ``nio``: ``[t, t]`` for every test, which exposes tests
that pass the first time and fail when run again in the same process (non-idempotent
outcome, NIO). Suspects are then confirmed by :mod:`orderdep.analysis.confirm`.

Default strategy (no strategy given), after the original order: each test alone
(``isolation``) when that fits a quarter of what is left (see
:mod:`~orderdep.analysis.default_strategy`), for at most twice its estimate (an extra: the
strategy chosen next is what the search promises), after the original order reversed
when ``random-reverse`` follows (its first order: the one order that exposes every victim
of a single polluter and every brittle of a single state-setter that pass in the original
order, which isolation, running over its estimate, must not take the place of), then

* ``tuscan`` (every consecutive pair of tests covered, 004 §5, so every victim of a single
  polluter and every brittle of a single state-setter is found) when its estimated cost
  fits: at most ``max_orders`` orders, and an estimated time within the budget left
  (:data:`AUTO_TUSCAN_SECONDS` when no budget is given). The estimate takes the number of
  orders of the plan itself for suites of up to :data:`EXACT_PLAN_TESTS` tests (else the
  lower bound, :func:`orderdep.core.tuscan.order_lower_bound`, scaled by what the
  generator was measured to need) and the n(n-1) + orders test executions that cover the
  pairs, priced with the :class:`~orderdep.analysis.estimate.Pace` of the original order
  and of :data:`~orderdep.analysis.estimate.TIMING_ORDERS` short orders run for it
  (strategy ``timing``), divided by ``jobs``;
* ``random-reverse`` (004 §4.4) otherwise: ``rounds`` orders, or as many as the budget and
  ``max_orders`` allow.

``random-reverse`` runs :data:`~orderdep.analysis.search.RR_CHAINS` independent chains of random orders, each
following the paper's rule (a random order that found nothing new is followed by its
reverse), so that several orders can run at once while the orders stay a function of the
seed alone, whatever ``jobs`` is.

``budget_seconds`` and ``max_orders`` bound the search: it stops before a batch that
would start past the budget or exceed the order count (the orders in flight finish), and
records ``stopped_early`` in the report's stats. When the strategies finish inside a
budget, what is left goes to orders for dependencies on several tests
(:mod:`orderdep.analysis.higher_order`). Suspects found up to then are still
confirmed (about ``2 * (confirm_runs + 1)`` orders each, fewer with earlier evidence).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Callable, Optional

from orderdep.analysis.budget import UNFINISHED_KEY, BudgetExhausted, unfinished
from orderdep.analysis.confirm import OrderRunner, RunLog, RunSource
from orderdep.analysis.confirm_chunks import Evidence, confirm_in_chunks
from orderdep.analysis.default_strategy import (
    AUTO_TUSCAN_SECONDS,
    EXACT_PLAN_TESTS,
    IsolationPlan,
    TuscanEstimate,
    choose_default,
    estimate_tuscan,
    kept_groups,
    leave_out_slow,
    plan_default,
)
from orderdep.analysis.estimate import per_od_test
from orderdep.analysis.guided import (
    GUIDED_MIN_SECONDS,
    GUIDED_MIN_TESTS,
    PROBED_STRATEGY,
    collect_hints,
)
from orderdep.analysis.higher_order import spend_leftover
from orderdep.analysis.pointing import pointed_first
from orderdep.analysis.search import DetectProgress, ProgressCallback, Search
from orderdep.analysis.strategy_runs import DEFAULT_ROUNDS, run_strategies
from orderdep.core import orders as gen
from orderdep.core.changed import changed_pair_count, changed_pair_orders
from orderdep.core.outcomes import OrderResult
from orderdep.core.promise import SHORTFALLS_KEY, shortfalls
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.core.slow_tests import SlowSplit
from orderdep.core.suite import GROUP_LEVELS, GroupLevel
from orderdep.engine.executor import Executor
from orderdep.errors import UsageError

Notice = Callable[[str], None]

STRATEGIES: tuple[str, ...] = (*gen.STRATEGIES, "nio")
DEFAULT_CONFIRM_RUNS = 5


def check_options(
    strategies: Sequence[str],
    rounds: Optional[int],
    group: str,
    budget_seconds: Optional[float],
    max_orders: Optional[int],
    confirm_runs: int,
) -> None:
    """Raise :class:`UsageError` for any option detection cannot work with."""
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise UsageError(
            f"unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)} "
            "(or give none for the default)"
        )
    if group not in GROUP_LEVELS:
        raise UsageError(f"unknown group level {group!r}; choose one of {', '.join(GROUP_LEVELS)}")
    if rounds is not None and rounds < 0:
        raise UsageError(f"rounds must be >= 0, got {rounds!r}")
    if budget_seconds is not None and budget_seconds <= 0:
        raise UsageError(f"the budget must be a positive number of seconds, got {budget_seconds!r}")
    if max_orders is not None and max_orders < 1:
        raise UsageError(f"max_orders must be at least 1, got {max_orders!r}")
    if confirm_runs < 0:
        raise UsageError(f"confirm_runs must be >= 0, got {confirm_runs!r}")


def detect(
    executor: Executor,
    *,
    strategies: Sequence[str] = (),
    rounds: Optional[int] = None,
    seed: int = 0,
    group: GroupLevel = "class",
    budget_seconds: Optional[float] = None,
    max_orders: Optional[int] = None,
    on_progress: Optional[ProgressCallback] = None,
    confirm_runs: int = DEFAULT_CONFIRM_RUNS,
    store: Optional[RunSource] = None,
    jobs: int = 1,
    notice: Optional[Notice] = None,
    classify_after: bool = False,
    changed: Sequence[str] = (),
    start_at: Optional[Mapping[str, int]] = None,
    extend_search: Optional[Callable[[], Optional[float]]] = None,
    guided: Optional[bool] = None,
    on_confirmed: Optional[Callable[[list[ODFinding], Evidence], None]] = None,
    fresh_confirmation: Optional[Callable[[], str]] = None,
    part: Optional[Sequence[str]] = None,
) -> Report:
    """Find the order-dependent, ND, NIO and always-failing tests of ``executor.suite``.

    ``strategies`` run in the given order after the original order (none: the default
    rule of the module docstring). ``rounds`` is the number of orders of ``random`` and
    ``random-reverse``. ``group`` keeps modules or classes contiguous in generated orders.
    ``store`` supplies earlier runs of the same orders as evidence. ``jobs`` is how many
    orders run at once (batch size and cost estimate); ``notice`` receives one-line
    messages (the default strategy chosen, with the cost per OD test found, including
    classification when ``classify_after``). Everything random comes from ``seed``.

    ``changed`` (tests a change added or touched) puts ``changed-pairs`` first after the
    original order: every ordered pair between a changed test and any other test, run
    consecutively (:func:`orderdep.core.changed.changed_pair_orders`, which ignores
    ``group``). ``start_at`` maps a fixed-set strategy (tuscan, reverse, ...) to the index
    of its first order to run, wrapping around, so a search stopped by the budget can be
    continued by the next run; ``stats.extras["next_order"]`` says where each stopped.
    ``extend_search`` gives the search more seconds, once, when its budget ends before
    any test failed (see :class:`~orderdep.analysis.search.Search`). ``guided``: right
    after the original order, its reverse (and a random order beside it) run under the
    state probe as search orders, and
    confirmation shortens each suspect's orders from the writers of what it read first
    (:mod:`.guided`), when the probed runs fit what is left of the command's budget;
    None: for suites of at least :data:`~.guided.GUIDED_MIN_TESTS` tests whose original
    order took at least :data:`~.guided.GUIDED_MIN_SECONDS`.
    ``on_confirmed`` receives OD findings a few at a time, as confirmation decides them,
    with what its runs showed of them (see :func:`~.confirm.confirm_in_chunks`):
    classification can take each before confirmation spends more. ``fresh_confirmation`` (an executor whose fork runner's
    check did not end): called once the search ends, it switches the executor to fresh
    processes and names their runner; confirmation then counts only that runner's runs,
    so the search's runs point at suspects and decide nothing. ``part``: the leading tests
    of the original order the search covers, when the whole order cannot run within the
    budget (:mod:`~orderdep.analysis.fork_part`); they are its original order, and the
    report says the rest was not searched.
    """
    check_options(strategies, rounds, group, budget_seconds, max_orders, confirm_runs)
    suite = executor.suite
    groups = [list(g) for g in suite.groups(group).values()]
    rng = random.Random(seed)
    log = RunLog(store)
    runner = OrderRunner(executor, log, jobs)
    say = notice or (lambda message: None)
    search = Search(
        runner,
        budget_seconds=budget_seconds,
        max_orders=max_orders,
        on_progress=on_progress,
        extend=extend_search,
        notice=say,
    )

    if part:
        groups = kept_groups(groups, list(part))
    searched = list(part) if part else suite.ids  # the original order the search covers
    search.run_stream("original", [gen.original(searched)], 1)
    next_order: dict[str, int] = {}
    if changed:
        pair_orders = changed_pair_orders(changed, suite.ids, random.Random(f"{seed}/changed"))
        run = search.run_stream("changed-pairs", pair_orders, len(pair_orders))
        next_order["changed-pairs"] = run
    hints = None
    took = search.results[0].wall_seconds if search.results else 0.0  # the original order
    if guided is None:
        guided = len(searched) >= GUIDED_MIN_TESTS and took >= GUIDED_MIN_SECONDS
    probed: list[str] = []
    if guided and search.results and not search.stopped:
        whole = getattr(executor, "budget", None)  # the command's, beyond the search's share
        left = whole.left() if whole is not None else search.budget_left()
        got = collect_hints(executor, searched, left, say, took, jobs=jobs, seed=seed, group=group)
        if got is not None:  # search orders that also say what each test read and wrote
            hints, results = got
            search.observe(PROBED_STRATEGY, results)
            probed = [PROBED_STRATEGY]
    chosen = list(dict.fromkeys(strategies))
    timed: list[str] = []
    alone: Optional[IsolationPlan] = None  # each test alone, when the default adds it
    ids, slow_left_out = searched, None  # the tests the search orders are made of
    slow: Optional[SlowSplit] = None
    if not chosen and search.results and not search.stopped:
        whole = getattr(executor, "budget", None)
        slow = leave_out_slow(
            search.results[0], whole.left() if whole is not None else search.budget_left(), say
        )
        if slow is not None:
            ids, groups = slow.kept, kept_groups(groups, slow.kept)
            slow_left_out = {"tests": len(slow.left_out), "seconds": slow.left_out_seconds,
                             "slowest": slow.left_out[0]}  # fmt: skip
    if not chosen and search.results:
        plan = plan_default(
            search, ids, groups, seed=seed, jobs=jobs, rng=rng, notice=say,
            per_od=lambda pace, length: per_od_test(
                pace, len(ids), confirm_runs=confirm_runs, classify=classify_after,
                jobs=jobs, failing_length=length,
            ), part=bool(part),
        )  # fmt: skip
        chosen, timed, alone = plan.strategies, plan.timed, plan.alone
    used = [
        "original",
        *(["changed-pairs"] if changed else []),
        *probed,
        *timed,
        *[s for s in chosen if s != "original"],
    ]
    ran = run_strategies(
        search, used[1 + bool(changed) + len(probed) + len(timed) :], ids, groups, rng,
        rounds=rounds, alone=alone, tail=slow.left_out if slow is not None else (),
        start_at=start_at, say=say,
    )  # fmt: skip
    open_ended = ran.open_ended
    next_order.update(ran.next_order)
    search.cover_missing_pairs()
    if slow_left_out is not None and search.tail_ran():
        slow_left_out["after_all"] = True  # they ran once after every other test
    # isolation the default added is an extra: the strategy chosen is what it promises
    promised = [s for s in used if not (s == "isolation" and alone is not None and alone.runs)]
    # An open-ended strategy ends at a limit by design; budget left after the strategies
    # goes to orders for dependencies on several tests, which end at the budget too
    # (neither is "stopped early" unless interrupted).
    finished = not search.stopped or (open_ended and search.stop_reason in ("budget", "max-orders"))
    if not search.stopped:
        used += spend_leftover(search, ids, groups, random.Random(f"{seed}/leftover"))
    early = search.stopped and not (finished and search.stop_reason in ("budget", "max-orders"))
    search_orders, search_executions = runner.orders_run, runner.executions

    def confirming(_result: OrderResult) -> None:
        if on_progress is not None:
            done = runner.orders_run - search_orders
            suspects = len(search.failed_seen)
            on_progress(DetectProgress("confirm", "", done, None, suspects, 0))

    runner.on_result = confirming
    to_confirm = list(search.results)
    if fresh_confirmation is not None and (search.failed_seen or search.nio_results):
        # the fork runner shortens the suspects' orders; fresh processes confirm them
        to_confirm = pointed_first(runner, to_confirm, search.nio_results, jobs)
        log.only = fresh_confirmation()
    # a few suspects at a time, so that a spent budget keeps the ones confirmed; rerunning
    # the command replays the orders and goes on
    verdicts, pending, stop = confirm_in_chunks(
        runner,
        to_confirm,
        search.nio_results,
        confirm_runs,
        2 * jobs,
        BudgetExhausted,
        guide=hints.hint if hints is not None else None,
        on_chunk=on_confirmed,
    )
    unconfirmed = stop.reason if isinstance(stop, BudgetExhausted) else None
    if on_progress is not None:
        on_progress(
            DetectProgress(
                "done", "", runner.orders_run - search_orders, None,
                len(search.failed_seen), len(verdicts.od),
            )
        )  # fmt: skip
    stats = RunStats(
        orders_run=runner.orders_run,
        test_executions=runner.executions,
        wall_seconds=search.elapsed(),
        seed=seed,
        strategies=used,
        extras={
            "stopped_early": early,
            "stop_reason": search.stop_reason if early else None,
            "promised": promised,
            "search_stop": search.stop_reason,
            "search_orders": search_orders,
            "search_executions": search_executions,
            "confirm_runs": confirm_runs,
            "group": group,
            **(
                {
                    "changed_tests": len(set(changed) & set(suite.ids)),
                    "changed_pairs": changed_pair_count(list(changed), suite.ids),
                }
                if changed
                else {}
            ),
            "next_order": next_order,
            **({"search_unchecked": True} if fresh_confirmation is not None else {}),
            **({"confirmed_fresh": log.only} if log.only is not None else {}),
            **({"slow_left_out": slow_left_out} if slow_left_out is not None else {}),
            **({"part_searched": {"tests": len(searched), "of": len(suite)}} if part else {}),
            "coverage": [a.summary() for a in search.accounts.values()],
        },
    )
    if unconfirmed is not None:
        stats.extras[UNFINISHED_KEY] = {
            "confirmation": unfinished("not finished", unconfirmed),
            "suspects": pending,
        }
    report = Report(
        project=suite.rootdir,
        tests=suite.ids,
        od_tests=verdicts.od,
        nd_tests=verdicts.nd,
        nio_tests=verdicts.nio,
        always_failing=verdicts.always_failing,
        stats=stats,
    )
    # What readers of the report (HTML, CI outputs) show without judging it again.
    stats.extras[SHORTFALLS_KEY] = shortfalls(report)
    return report


__all__ = [
    "AUTO_TUSCAN_SECONDS",
    "DEFAULT_CONFIRM_RUNS",
    "DEFAULT_ROUNDS",
    "EXACT_PLAN_TESTS",
    "STRATEGIES",
    "TuscanEstimate",
    "check_options",
    "choose_default",
    "detect",
    "estimate_tuscan",
]
