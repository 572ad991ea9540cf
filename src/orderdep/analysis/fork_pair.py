"""The fork runner and a fresh pytest running one order, side by side or one after the
other, within a share of the budget (the runs :mod:`fork_trust`'s check compares)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.analysis.fidelity_partial import CheckCut, fitting_prefix
from orderdep.analysis.fork_part import filled_notice, part_filled
from orderdep.core.outcomes import OrderResult
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine
from orderdep.engine.testclock import Progress

# Seconds between two lines saying the check is still running.
HEARTBEAT = 15.0
# Seconds to wait for killed runs to report back.
STOP_WAIT = 30.0
#: Pacing the fork runner's run of the original order (``pace``): the share of its
#: seconds that passes before its pace may stop it, and the seconds between two looks.
PACE_AFTER = 1 / 3
PACE_POLL = 2.0


def out_of_pace(progress: Optional[Progress], tests: int, share: Budget) -> bool:
    """Whether a run of ``tests`` tests that ended ``progress.finished`` of them in
    ``progress.seconds`` seconds cannot end within ``share`` at that pace. Never before
    :data:`PACE_AFTER` of the share passed, nor before a test ended."""
    if progress is None or share.seconds is None:
        return False
    done, seconds = progress.finished, progress.seconds
    if done < 1 or done >= tests or seconds < PACE_AFTER * share.seconds:
        return False
    return seconds * tests / done > share.seconds


def side_by_side(
    engine: Engine,
    plain: PlainRunner,
    order: Sequence[str],
    notice: Callable[[str], None],
    budget: Optional[Budget] = None,
    exclusive: bool = False,
    fork_budget: Optional[Budget] = None,
    given: Optional[Mapping[str, OrderResult]] = None,
    pace: bool = False,
) -> dict[str, OrderResult]:
    """``order`` under the fork runner and plain pytest: at once when ``--jobs`` is 2 or
    more, one after the other otherwise (and with ``exclusive``, the fork runner's test
    processes stopped before the fresh pytest starts: see
    :func:`~orderdep.analysis.fork_collect.alone_collects`); a line every
    :data:`HEARTBEAT` seconds while they run. When ``budget`` runs out (or on Ctrl-C
    with a budget), both runs are killed and
    :class:`~orderdep.analysis.budget.BudgetExhausted` is raised; on Ctrl-C without a
    budget (or any error) both runs are killed, and their threads have ended, before the
    exception goes on. One after the other, when what is left of ``budget`` after the fork
    runner's run cannot hold a fresh pytest of the whole order, the fresh pytest runs the
    prefix that fits and :class:`CheckCut` (``planned``) is raised with both results. One
    after the other, ``fork_budget`` (a larger share) bounds the fork runner's run instead
    of ``budget``: the analysis needs that run of the original order anyway, and killing
    it when nearly done would waste it. A runner's result in ``given`` is taken as its
    run: only the other one runs. With ``pace``, the fork runner's run bounded by
    ``fork_budget`` is stopped, as when that share ends, once its pace shows it cannot
    end within it (:func:`out_of_pace`), or once what it reached is all a search within
    the budget can cover (:func:`~.fork_part.part_filled`): every second past that point
    would go to tests a search within the budget cannot reach."""
    if budget is not None:
        budget.check()
    sequential = engine.config.jobs < 2 or exclusive
    shortened: list[OrderResult] = []  # the fork run, when a fresh pytest got a prefix

    def plain_run() -> OrderResult:
        if exclusive:
            engine.release()
        fork = futures["fork"] if sequential and budget is not None else None
        if fork is not None and budget is not None and returned(fork):
            n = fitting_prefix(fork.result(), budget.left())
            if n:  # a fresh pytest of the whole order would not fit; a prefix does
                shortened.append(fork.result())
                return plain.run(list(order)[:n])
        return plain.run(order)

    runs: dict[str, Callable[[], OrderResult]] = {
        "fork": lambda: engine.run(order),
        "plain": plain_run,
    }
    for name, result in (given or {}).items():
        runs[name] = _taken(result)
    results: dict[str, OrderResult] = {}
    started = last = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=1 if sequential else min(2, engine.config.jobs))

    def stop_runs() -> None:
        # Kill both runs (also one whose thread is only starting it) and wait for their
        # threads: the caller removes their working copies next.
        pool.shutdown(wait=False, cancel_futures=True)
        engine.block()
        plain.block()
        try:
            # A future cancelled before it started is never "done" for wait().
            wait([f for f in futures.values() if not f.cancelled()], timeout=STOP_WAIT)
        finally:
            engine.unblock()
            plain.unblock()

    futures: dict[str, Future[OrderResult]] = {}
    try:
        for name, run in runs.items():
            futures[name] = pool.submit(run)
        while True:
            forking = sequential and fork_budget is not None and not futures["fork"].done()
            limit = fork_budget if forking else budget
            left = None if limit is None else limit.left()
            progress = engine.progress() if pace and forking else None
            hopeless = fork_budget is not None and out_of_pace(progress, len(order), fork_budget)
            if hopeless:
                notice(paced_out(progress, len(order), fork_budget))
            elif fork_budget is not None and fork_budget.parent is not None:
                hopeless = part_filled(progress, len(order), fork_budget.parent.left())
                if hopeless:
                    notice(filled_notice(progress, len(order)))
            if (left == 0 or hopeless) and not all(f.done() for f in futures.values()):
                assert limit is not None
                limit.stop("budget")
                stop_runs()
                # what each run had done when killed (or its whole result, if it ended)
                ran = {n: f.result() for n, f in futures.items() if returned(f)}
                raise CheckCut("budget", ran)
            timeout = HEARTBEAT if left is None else min(HEARTBEAT, left)
            if pace and forking:
                timeout = min(timeout, PACE_POLL)
            done, pending = wait(futures.values(), timeout=timeout)
            for future in done:
                future.result()  # an engine error is raised here, in the caller's thread
            if not pending:
                break
            if time.monotonic() - last >= HEARTBEAT * 0.99:
                last = time.monotonic()
                notice(still_running(futures, last - started))
        for name, future in futures.items():
            results[name] = future.result()
    except KeyboardInterrupt as exc:
        stop_runs()
        if budget is None:
            raise
        budget.interrupted(exc)  # the command writes its report, then stops
        raise BudgetExhausted("interrupted") from None
    except BaseException:
        stop_runs()
        raise
    pool.shutdown()
    if shortened:
        raise CheckCut("budget", results, planned=True)
    return results


def paced_out(progress: Optional[Progress], tests: int, share: Optional[Budget]) -> str:
    """What the user reads when :func:`out_of_pace` stops the fork runner's run."""
    done, seconds = (progress.finished, progress.seconds) if progress is not None else (0, 0.0)
    within = f" ({share.seconds:.0f} s)" if share is not None and share.seconds else ""
    return (
        f"orderdep: checking the fork runner: its run of the original order ended {done} "
        f"of the {tests} tests in {seconds:.0f} s; at that pace it cannot end within its "
        f"share of the budget{within}, so it stops there"
    )


def _taken(result: OrderResult) -> Callable[[], OrderResult]:
    """A run that returns ``result``, which a runner already gave."""
    return lambda: result


def still_running(futures: dict[str, Future[OrderResult]], seconds: float) -> str:
    """The heartbeat line: the runs started and not ended, and one waiting for its turn
    (one after the other, the fresh pytest starts when the fork runner's run ends)."""
    running = [name for name, f in futures.items() if f.running()]
    waiting = [name for name, f in futures.items() if not f.done() and not f.running()]
    line = f"orderdep: checking the fork runner: {' and '.join(running)} still running"
    if waiting:
        line += f", then {' and '.join(waiting)}"
    return f"{line} ({seconds:.0f} s)"


def returned(future: Future[OrderResult]) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None
