"""The fork check the analysing commands run before they rely on the fork runner.

:func:`trust_fork` runs the original order, and each test that failed in it alone,
under the fork runner and plain pytest (:mod:`fork_pair`), side by side when ``--jobs``
allows; verdicts are
cached per code version (:class:`~orderdep.analysis.fidelity.VerdictCache`), so a project
is checked once until its code changes. Within a budget the check has shares of its own;
what a check its share cut short still tells is in :mod:`fidelity_partial`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional

from orderdep.analysis.budget import Budget, BudgetExhausted
from orderdep.analysis.fidelity import VerdictCache, config_key
from orderdep.analysis.fidelity_fast import without_slow
from orderdep.analysis.fidelity_partial import CheckCut, partial_verdict, whole
from orderdep.analysis.fork_collect import alone_collects, without_missing
from orderdep.analysis.fork_pair import side_by_side
from orderdep.analysis.fork_part import part_notice, reached_part
from orderdep.analysis.fork_part_check import check_part
from orderdep.analysis.fork_settle import add_settled
from orderdep.core.fidelity import FidelityReport, SampleOrder
from orderdep.core.outcomes import OrderResult
from orderdep.core.volatile import param_base, volatile_notice
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine
from orderdep.engine.tempdirs import make_workdir

QUICK_SINGLES = 5
#: Share of a command's budget the fork runner's check may use for the original order:
#: the search needs that order anyway (the fork runner's run of it is handed to the
#: search when the runners agree), so only the fresh pytest beside it is the check's
#: own cost; killing both at a small share would waste the order and send every later
#: one to a fresh pytest.
ORIGINAL_SHARE = 0.5
#: With ``--jobs 1``, the share the fork runner's own run of the original order may take
#: (the fresh pytest after it still ends within ORIGINAL_SHARE, or runs a prefix).
FORK_SHARE = 0.6
#: Share for the failing tests alone, once the original order compared (each costs a
#: fresh pytest, which the subprocess runner would pay for every order).
CHECK_SHARE = 0.2
#: Suffix of the cache key of a verdict a share cut short (see :func:`trust_fork`).
PARTIAL = "/partial"


def _unchecked(reason: str, tests: int, budget: Optional[Budget], searching: bool = False) -> str:
    """What the user reads when the check stopped before its verdict (``searching``: the
    fork runner searches on, and fresh processes confirm)."""
    if reason == "interrupted":
        return "orderdep: interrupted while checking the fork runner; nothing was checked"
    whole = budget.parent if budget is not None and budget.parent is not None else budget
    seconds = budget.seconds if budget is not None else None
    share = (
        "" if seconds is None else f" ({seconds:.1f} s)" if seconds < 10 else f" ({seconds:.0f} s)"
    )
    now = f" (now {whole.seconds:g} s)" if whole is not None and whole.seconds else ""
    then = (
        "searching with the fork runner, whose run of the original order ended, and "
        "confirming what it finds in fresh processes (the fork runner's runs only point at "
        "suspects)"
        if searching
        else "using the subprocess runner, which needs no check (each order in a fresh "
        "pytest, slower)"
    )
    return (
        f"orderdep: checking the fork runner against a fresh pytest (the original order of "
        f"{tests} tests, then failing tests alone) did not finish within its share of the "
        f"budget{share}; {then}. To let the check finish once (its verdict is kept for this "
        f"code version), rerun with a larger --budget{now}; --no-check uses the fork runner "
        "unchecked"
    )


def trust_fork(
    engine: Engine,
    cache: VerdictCache,
    notice: Callable[[str], None],
    budget: Optional[Budget] = None,
    *,
    confirms_fresh: bool = False,
    leading: Optional[int] = None,
) -> Optional[FidelityReport]:
    """The cheap check before an analysis relies on ``engine``'s fork runner.

    Runs the original order, and each test that failed in it alone, under the fork
    runner and plain pytest (side by side when ``--jobs`` allows two processes). When they
    disagree, says so in one line and switches the engine to the subprocess runner. When
    they agree, the fork runner's original order is offered to the engine, so the
    analysis that follows does not run it again. Returns the verdict (None when nothing
    was checked).

    With ``budget`` (the command's ``--budget``), the check may use
    :data:`ORIGINAL_SHARE` of it for the original order (which the search needs anyway)
    and :data:`CHECK_SHARE` for the failing tests alone (on a loaded machine a fresh
    pytest of a few tests can take seconds, and giving up the check sends every order to
    one), so it never eats the search: when a share runs out before the check ends, its
    runs are killed (see :data:`PARTIAL` for what is kept). The fork runner is still used
    when what ran agrees: a common prefix of the original order of a third of it or more (see
    :mod:`fidelity_partial`), or the original order whole when a test alone was cut.
    Otherwise the engine switches to the subprocess runner (fresh processes need no
    check) and None is returned. A cut-short verdict that agreed is kept apart
    (:data:`PARTIAL`): the next command within a budget uses the fork runner on it
    rather than pay for the same cut-short check again (a slow suite's ``fix`` after its
    ``detect``); one without a budget checks whole. On Ctrl-C the whole budget is marked
    stopped (so the analysis writes its report at once) and None is returned.

    ``confirms_fresh``: the caller (detection) confirms what it finds in fresh processes
    when asked to (:attr:`~orderdep.engine.runner.Engine.search_unchecked`). A check its
    share stopped before any verdict, after the fork runner ran the original order
    whole, then leaves the engine on the fork runner for the search, with that run
    offered, instead of sending a slow suite's every order to a fresh pytest. When that
    run did not end either, the search covers the leading part of it an order of which
    fits the budget left (:mod:`fork_part`), and a fresh pytest of that part decides
    (:mod:`fork_part_check`): its verdict is returned and kept as a cut-short one; when
    it cannot tell, the fork runner searches and fresh processes confirm.

    A search in a part is worth more than the rest of a run that cannot end: with
    ``confirms_fresh``, the fork runner's run of the original order stops as soon as its
    pace shows it cannot end within its share (:func:`~.fork_pair.out_of_pace`).

    ``leading``: the check stands on the first ``leading`` tests of the original order
    (those ``detect`` searched in a suite too long for its budget, see
    :mod:`~orderdep.analysis.fork_part`), and its verdict is kept as a cut-short one.
    """
    if engine.runner != "fork":
        return None
    key = config_key(engine.config)
    report = cache.get(key)
    kept: Optional[OrderResult] = None
    earlier = cache.get(key + PARTIAL) if report is None and budget is not None else None
    if earlier is not None and earlier.faithful:
        notice(
            "orderdep: using the fork runner: an earlier run's check, cut short by its "
            "budget, agreed on what it compared (a run without --budget, or `orderdep "
            "doctor`, checks the whole order)"
        )
        return earlier
    if report is None:
        ids = engine.suite.ids
        if leading is not None and 0 < leading < len(ids):
            notice(
                f"orderdep: checking the fork runner against a fresh pytest on the first "
                f"{leading} of the original order's {len(ids)} tests (those detect searched)"
            )
            ids = ids[:leading]
        else:
            leading = None
            notice(
                f"orderdep: checking the fork runner against a fresh pytest on the original "
                f"order ({len(ids)} tests; once per code version)"
            )
        part = budget.part(ORIGINAL_SHARE) if budget is not None else None
        # one after the other, the fork runner's run of the original order (the search's
        # own, when it agrees) may go on past that share, to FORK_SHARE of the budget
        fork_share = budget.part(FORK_SHARE) if budget is not None else None
        # Not recorded: runs of a runner that may not be trusted are no evidence.
        with make_workdir() as tmp, engine.unrecorded():
            plain = PlainRunner(engine.config, Path(tmp) / "plain")
            plain.policy = engine.timeouts
            # A fresh pytest finds tests whose ids change between processes by alignment.
            plain.set_reference(ids)
            report = FidelityReport(["fork", "plain"], planned=1)
            checked: dict[str, OrderResult] = {}  # the original order, once compared
            exclusive = False
            try:
                original = side_by_side(engine, plain, ids, notice, part, fork_budget=fork_share,
                                        pace=confirms_fresh and leading is None)  # fmt: skip
                exclusive = alone_collects(engine, plain, ids, original, notice)
                engine.id_notices.add(plain.ids, notice)
                compared = without_missing(ids, plain, notice)
                if compared != ids:  # nothing to compare when no test is left
                    original = (
                        side_by_side(engine, plain, compared, notice, part, exclusive)
                        if compared
                        else {}
                    )
                if original:
                    sample = SampleOrder("original", tuple(compared))
                    add_settled(report, sample, original, engine, plain, notice, part, exclusive)
                    checked = original
                failing: list[str] = []
                for result in original.values():
                    failing += [r.test for r in result.results if r.outcome.is_failure]
                alone = [SampleOrder("alone", (t,)) for t in dict.fromkeys(failing)]
                if alone:
                    notice(
                        f"orderdep: checking the fork runner: "
                        f"{min(len(alone), QUICK_SINGLES)} failing test(s) alone"
                    )
                if alone and part is not None and budget is not None:
                    part = budget.part(CHECK_SHARE)  # a second share, from now
                for sample in alone[:QUICK_SINGLES]:
                    report.planned += 1
                    results = side_by_side(engine, plain, sample.order, notice, part, exclusive)
                    add_settled(report, sample, results, engine, plain, notice, part, exclusive)
                engine.id_notices.add(plain.ids, notice)
                report.volatile = list(plain.ids.renamed)
                report.left_out = ids_left_out = list(plain.ids.missing)
                kept = None if ids_left_out else original.get("fork")
            except BudgetExhausted as stop:
                cut_short = _cut_short(engine, plain, ids, checked, report, stop, notice,
                                       part, exclusive, offer=not plain.ids.missing)  # fmt: skip
                if cut_short is not None:
                    if cut_short.faithful:  # the next command within a budget takes it
                        cache.put(key + PARTIAL, cut_short)
                    return cut_short
                fork = stop.results.get("fork") if isinstance(stop, CheckCut) else None
                usable = (
                    confirms_fresh
                    and stop.reason != "interrupted"
                    and fork is not None
                    and fork.order == list(ids)
                    and not plain.ids.missing
                )
                searching = usable and whole(fork)
                reached = None
                if usable and not searching and fork is not None and budget is not None:
                    reached = reached_part(fork, budget.left() or 0.0)
                if reached is not None and fork is not None and budget is not None:
                    notice(part_notice(reached, fork, len(ids), fork_share))
                    engine.search_part = list(reached.order)
                    checked_part = check_part(engine, plain, reached, notice,
                                              budget.part(CHECK_SHARE), exclusive)  # fmt: skip
                    if checked_part is None:  # fresh processes confirm what it finds
                        engine.offer(reached)
                        engine.search_unchecked = True
                        return None
                    if checked_part.faithful:
                        engine.offer(reached)
                        cache.put(key + PARTIAL, checked_part)
                    else:
                        _disagree(engine, checked_part, notice)
                    return checked_part
                notice(_unchecked(stop.reason, len(ids), part, searching))
                if searching and fork is not None:
                    engine.offer(fork)
                    engine.search_unchecked = True
                elif stop.reason != "interrupted":
                    engine.use_subprocess()
                return None
            finally:
                plain.close()
        cache.put(key if leading is None else key + PARTIAL, report)
        if report.faithful and kept is not None:
            engine.offer(kept)
    elif report.volatile:
        # The ids were those of the process that checked: name the test functions.
        notice(volatile_notice(sorted({f"{param_base(t)}[...]" for t in report.volatile})))
    if not report.faithful:
        _disagree(engine, report, notice)
    return report


def _disagree(engine: Engine, report: FidelityReport, notice: Callable[[str], None]) -> None:
    """Say where the runners disagree, and switch ``engine`` to the subprocess runner."""
    m = report.mismatches[0]
    count = max(report.mismatch_count, len(report.mismatches))
    more = f" (and {count - 1} more)" if count > 1 else ""
    notice(
        f"orderdep: the fork runner and a fresh pytest disagree on {m.test} "
        f"({m.label}: fork {m.outcomes.get('fork')}, pytest {m.outcomes.get('plain')})"
        f"{more}; using the subprocess runner (see `orderdep doctor`)"
    )
    engine.use_subprocess()


def _cut_short(
    engine: Engine,
    plain: PlainRunner,
    ids: Sequence[str],
    checked: dict[str, OrderResult],
    report: FidelityReport,
    stop: BudgetExhausted,
    notice: Callable[[str], None],
    share: Optional[Budget],
    exclusive: bool,
    *,
    offer: bool,
) -> Optional[FidelityReport]:
    """The verdict of a check its share stopped (never kept): on the original order,
    from the tests both runners ran to an end (see :mod:`fidelity_partial`), or else on
    the original order without its slow tests (:func:`~.fidelity_fast.without_slow`);
    on the failing tests alone, the original order's, when it was compared whole. None
    when it cannot tell."""
    if not isinstance(stop, CheckCut):
        return None
    if checked:  # the original order compared whole; a test alone was cut
        if not report.faithful:
            return None
        notice(
            "orderdep: checking the fork runner: the original order agrees; its share of "
            "the budget ended before every failing test alone was compared; using the fork "
            "runner (the verdict is kept for runs within a budget; one without --budget "
            "checks the whole order)"
        )
        verdict = report
        fork = checked.get("fork")
    else:
        partial = partial_verdict(ids, stop, notice, share)
        if partial is None and share is not None and share.parent is not None:
            part = share.parent.part(CHECK_SHARE)
            partial = without_slow(engine, plain, ids, stop, notice, part, exclusive)
        if partial is None:
            return None
        verdict, fork = partial, stop.results.get("fork")
    if not verdict.faithful:
        _disagree(engine, verdict, notice)
        return verdict
    if offer and fork is not None and whole(fork) and fork.order == list(ids):
        engine.offer(fork)
    return verdict
