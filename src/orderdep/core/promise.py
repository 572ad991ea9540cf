"""What a detection promised and what it did not do: a verdict is only as strong as its search.

"No order-dependent test found" means something only when the search that was promised
ran: every order of a planned strategy (tuscan's pairs, the reverse order, ...), at least
one order of an open-ended one (random orders until the budget), every test each order
asked for, and the confirmation of every suspect. :func:`shortfalls` reads a report's
stats (written by :mod:`orderdep.analysis.detect`) and says, one sentence each, what of
that did not happen. An empty list is a complete search; anything else is not a clean
result, whatever was found (see :mod:`orderdep.shells.exitcodes`).

Reports written before these keys existed have no ``promised`` list: only what they do
record (a stopped search, unfinished confirmation) is judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orderdep.core.report import COLLECTION_CHECK_KEY, Report

#: Key in a detection report's stats: its shortfalls as detection judged them.
SHORTFALLS_KEY = "shortfalls"
#: Strategies that only time the suite for the estimate; they promise nothing.
UNPROMISING = ("timing",)
STOP_WORDS = {
    "budget": "the budget ran out",
    "interrupted": "it was interrupted",
    "max-orders": "--max-orders was reached",
}


def _accounts(extras: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for account in extras.get("coverage") or []:
        if isinstance(account, Mapping) and isinstance(account.get("strategy"), str):
            out[account["strategy"]] = account
    return out


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def shortfalls(report: Report) -> list[str]:
    """What the search behind ``report`` promised and did not do, one sentence each
    (empty: the promised search ran whole)."""
    extras = report.stats.extras
    accounts = _accounts(extras)
    reason = extras.get("stop_reason") or extras.get("search_stop")
    why = STOP_WORDS.get(str(reason), "it stopped early")
    out: list[str] = []
    promised = extras.get("promised")
    if isinstance(promised, list):
        for strategy in promised:
            if strategy in UNPROMISING:
                continue
            account = accounts.get(strategy)
            if account is None:
                out.append(f"{strategy}: not started ({why})")
                continue
            run, planned = _int(account.get("orders_run")), account.get("orders_promised")
            if isinstance(planned, int) and run < planned:
                out.append(f"{strategy}: {run} of {planned} planned orders ran ({why})")
            elif planned is None and run == 0:
                out.append(f"{strategy}: no order ran ({why})")
    elif extras.get("stopped_early"):
        out.append(f"the search stopped early ({why})")
    for strategy, account in accounts.items():
        unrun = _int(account.get("unrun_positions"))
        if unrun:
            example = account.get("unrun_example")
            first = f", first {example}" if example else ""
            out.append(
                f"{strategy}: {unrun} test position(s) got no outcome although nothing "
                f"crashed or hung before them{first}; those orders count as failed runs"
            )
    slow = extras.get("slow_left_out")
    if isinstance(slow, Mapping) and _int(slow.get("tests")) and slow.get("after_all"):
        out.append(
            f"{_int(slow.get('tests'))} slow test(s) ran in the original order and once "
            f"after all the other tests: no search order ran them before the tests they "
            f"come after in the original order (a larger --budget searches them too)"
        )
    elif isinstance(slow, Mapping) and _int(slow.get("tests")):
        out.append(
            f"{_int(slow.get('tests'))} slow test(s) ran only in the original order: the "
            f"search orders left them out to fit the budget (a larger --budget searches "
            f"them too)"
        )
    searched = extras.get("part_searched")
    if isinstance(searched, Mapping) and _int(searched.get("tests")) < _int(searched.get("of")):
        n, of = _int(searched.get("tests")), _int(searched.get("of"))
        out.append(
            f"the search covered the first {n} of the original order's {of} tests: the "
            f"whole order did not fit the budget, and the other {of - n} were not searched "
            f"(a larger --budget searches them)"
        )
    if extras.get("search_unchecked"):
        out.append(
            "the search ran on the fork runner, whose check against a fresh pytest did not "
            "finish within its share of the budget (a larger --budget lets it finish); what it "
            "found was confirmed in fresh processes"
        )
    files = extras.get(COLLECTION_CHECK_KEY)
    shared = isinstance(files, Mapping) and _int(files.get("most")) > 1
    if isinstance(files, Mapping) and _int(files.get("run")) < _int(files.get("files")):
        n, of = _int(files.get("run")), _int(files.get("files"))
        how = "" if shared else " alone as `pytest FILE` does"
        out.append(
            f"the collection check ran {n} of the {of} test files{how}: the other "
            f"{of - n} were not run (a larger --budget runs them)"
        )
    if isinstance(files, Mapping) and shared:
        out.append(
            f"the collection check ran the test files {_int(files.get('most'))} at most to "
            f"a fresh pytest ({_int(files.get('runs'))} runs), not each alone: a test that "
            "needs another file's import-time code shows only when that file had another "
            "run (a larger --budget runs each alone)"
        )
    fewer = [f.observed_fewer for f in report.od_tests if f.observed_fewer is not None]
    unfinished = extras.get("unfinished")
    if isinstance(unfinished, Mapping) and "confirmation" in unfinished:
        suspects = unfinished.get("suspects") or []
        if suspects or not fewer:
            out.append(f"{len(suspects)} suspect(s) not confirmed: {unfinished['confirmation']}")
    if fewer:
        runs, asked = min(r for r, _ in fewer), max(a for _, a in fewer)
        out.append(
            f"{len(fewer)} OD test(s) confirmed by {runs} runs of each order that shows it, "
            f"not {asked}: the budget ended first"
        )
    return out


def complete(report: Report) -> bool:
    """Whether the promised search ran whole (see :func:`shortfalls`)."""
    return not shortfalls(report)


__all__ = ["SHORTFALLS_KEY", "complete", "shortfalls"]
