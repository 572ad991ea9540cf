"""The terminal summary of a report: what was found and the commands that reproduce it.

Plain text through rich (no markup: test ids contain brackets), never wrapped, so every
printed command can be copied, or parsed by a test, as one line.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Optional

from rich.console import Console
from rich.text import Text

from orderdep.analysis.budget import UNFINISHED_KEY
from orderdep.analysis.collection_check import STATS_KEY as COLLECTION_STATS
from orderdep.analysis.estimate import TIMING_STRATEGY
from orderdep.core import replan
from orderdep.core.outcomes import Outcome
from orderdep.core.promise import shortfalls
from orderdep.core.report import ODFinding, Report
from orderdep.shells.explain import finding_lines, sentence
from orderdep.shells.options import default_html, engine_flags
from orderdep.shells.table import aligned

#: ``command(test, order, label)``: the command that runs ``order``, in which ``test``
#: ``label`` ("fails" or "passes").
OrderCommand = Callable[[str, list[str], str], str]


def _n(count: int, word: str, plural: Optional[str] = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def describe(finding: ODFinding) -> str:
    """One line on an OD test: its kind and explanation when classified, else what the
    confirmed orders show about running it alone."""
    if finding.kind is not None:
        return sentence(finding, rate=False)
    test = finding.test
    if finding.passing_order == [test]:
        seen = "passes alone"
    elif finding.failing_order == [test]:
        seen = "fails alone"
    else:
        seen = "not run alone"
    fail, passes = len(finding.failing_order), len(finding.passing_order)
    return (
        f"kind unknown ({seen}; --classify tells); fails in a confirmed order of "
        f"{_n(fail, 'test')}, passes in one of {_n(passes, 'test')}"
    )


class Printer:
    """Prints plain lines (no markup, no highlighting, no wrapping) to a rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def line(self, text: str = "", style: str = "") -> None:
        self.console.print(Text(text, style=style), soft_wrap=True, highlight=False)


def render_summary(
    report: Report,
    console: Console,
    command: OrderCommand,
    report_path: Optional[str] = None,
    next_steps: Sequence[tuple[str, str]] = (),
    html_line: Optional[str] = None,
) -> None:
    """Print the findings of ``report``: per OD test its kind, its partners by name, its
    flake rate and the shortest orders that show it as ``command(test, order, label)``; then the
    other flaky tests, what the run cost, and ``next_steps`` ((command, what it does)).
    """
    out = Printer(console)
    if report.od_tests:
        out.line(f"{_n(len(report.od_tests), 'order-dependent test')}:", "bold red")
        index = {t: i for i, t in enumerate(report.tests)}
        for finding in sorted(report.od_tests, key=lambda f: index.get(f.test, len(index))):
            kind = f"  [{finding.kind}]" if finding.kind else ""
            out.line(f"  {finding.test}{kind}", "bold")
            out.line(f"    {describe(finding)}")
            for line in finding_lines(finding, partial(command, finding.test), "    "):
                out.line(line)
    elif shortfalls(report):
        out.line(
            "no order-dependent test found in what ran, but the search did not run whole "
            "(not a clean result; what did not run is listed below)",
            "bold yellow",
        )
    else:
        out.line("no order-dependent tests found", "bold green")
    if report.nio_tests:
        out.line(
            f"{_n(len(report.nio_tests), 'non-idempotent test')} "
            "(passes alone, fails when run again in the same process):",
            "bold red",
        )
        for test in report.nio_tests:
            out.line(f"  {test}", "bold")
            out.line(f"    reproduce: {command(test, [test, test], 'fails')}")
    _listing(out, "non-deterministic (its outcome changed within one order)", report.nd_tests)
    _listing(out, "always failing (also alone)", report.always_failing, _lost_reasons(report))
    rows = table_rows(report)
    if rows:
        out.line("summary:", "bold")
        headers = ("test", "kind", "partners", "cleaners", "flake rate")
        for line in aligned(headers, rows, indent="  "):
            out.line(line)
    out.line(stats_line(report))
    for line in coverage_lines(report):
        out.line(line)
    if report_path is not None:
        out.line(f"report: {report_path}")
    if html_line is not None:
        out.line(html_line)
    if next_steps:
        out.line("next:", "bold")
        for step, what in next_steps:
            out.line(f"  {step}")
            out.line(f"      {what}")


def table_rows(report: Report) -> list[tuple[str, str, str, str, str]]:
    """One row per test the report flags, in suite order within each kind of row: OD
    tests (kind, partners, cleaners, flake rate), then non-idempotent, non-deterministic
    and always-failing tests."""
    index = {t: i for i, t in enumerate(report.tests)}
    rows = [
        _od_row(f) for f in sorted(report.od_tests, key=lambda f: index.get(f.test, len(index)))
    ]
    for kind, tests in (
        ("non-idempotent", report.nio_tests),
        ("non-deterministic", report.nd_tests),
        ("always failing", report.always_failing),
    ):
        rows += [(test, kind, "-", "-", "-") for test in tests]
    return rows


def _od_row(finding: ODFinding) -> tuple[str, str, str, str, str]:
    marks = finding.extras.get(UNFINISHED_KEY)
    marks = marks if isinstance(marks, dict) else {}
    rate = finding.flake_rate.get("all")
    shown_rate = "-" if rate is None else f"{rate * 100:.1f}%"
    if rate is not None and finding.flake_rate_is_upper_bound:
        shown_rate = f"at most {shown_rate}"
    if finding.kind == "victim":
        partners = _counts(
            (len(finding.polluters), "polluter"), (len(finding.polluter_groups), "polluter group")
        )
        cleaners = {c for cs in finding.cleaners.values() for c in cs}
        shown_cleaners = (
            "not searched" if "cleaners" in marks else str(len(cleaners)) if cleaners else "none"
        )
    elif finding.kind == "brittle":
        partners = _counts(
            (len(finding.state_setters), "state-setter"),
            (len(finding.state_setter_groups), "setter group"),
        )
        shown_cleaners = "-"
    else:
        return (finding.test, "not classified", "-", "-", shown_rate)
    if "polluters" in marks or "state_setters" in marks:
        partners += " (search unfinished)"
    return (finding.test, finding.kind, partners, shown_cleaners, shown_rate)


def _counts(*counts: tuple[int, str]) -> str:
    return ", ".join(_n(n, word) for n, word in counts if n) or "none found"


def next_commands(
    report: Report, project: Path, report_file: Optional[Path], params: dict[str, Any]
) -> list[tuple[str, str]]:
    """The commands that take a report further, as (command, what it does): classify
    when some OD test is not classified, then deps, fix and the HTML report."""
    if not report.od_tests:
        return []
    where = ["--report", str(report_file)] if report_file is not None else []
    flags = engine_flags(params)
    # `fix` keeps no results store: every other engine option carries over.
    fix_flags = engine_flags({**params, "store_path": None})
    steps: list[tuple[str, str]] = []
    if any(not f.classified for f in report.od_tests):
        steps.append(
            (
                shlex.join(["orderdep", "classify", str(project), *where, *flags]),
                "name each OD test's polluters, cleaners or state-setters",
            )
        )
    steps.append(
        (
            shlex.join(["orderdep", "deps", str(project), *where]),
            "write the dependencies file that keeps these tests apart under pytest",
        )
    )
    steps.append(
        (
            shlex.join(["orderdep", "fix", str(project), *where, *fix_flags]),
            "print verified patches that remove the dependencies",
        )
    )
    html = default_html(project, report_file)
    steps.append(
        (
            shlex.join(["orderdep", "report", str(project), *where, "--html", str(html)]),
            "write everything above as one HTML page",
        )
    )
    return steps


def _listing(
    out: Printer, title: str, tests: Sequence[str], notes: Optional[Mapping[str, str]] = None
) -> None:
    if tests:
        out.line(f"{_n(len(tests), 'test')} {title}:", "yellow")
        for test in tests:
            note = (notes or {}).get(test)
            out.line(f"  {test} ({note})" if note else f"  {test}")


OUTCOMES = {o.value for o in Outcome}


def _lost_reasons(report: Report) -> dict[str, str]:
    """Tests that crashed or ran past their time limit in some order, and which."""
    out: dict[str, str] = {}
    for account in report.stats.extras.get("coverage") or []:
        if isinstance(account, dict):
            for test, outcome in (account.get("lost_to") or {}).items():
                reason = replan.REASONS.get(Outcome(outcome)) if outcome in OUTCOMES else None
                if reason:
                    out.setdefault(str(test), reason)
    return out


def stats_line(report: Report) -> str:
    """What the report cost and how to reproduce it: orders (every order run, with how
    many the search, confirmation and classification each took when known), executions,
    time, seed."""
    s = report.stats
    line = (
        f"{' + '.join(_ran(report)) or 'no strategy'}: {_n(s.orders_run, 'order')} run"
        f"{_breakdown(s.orders_run, s.extras)}, "
        f"{_n(s.test_executions, 'test execution')} in {s.wall_seconds:.1f} s; seed {s.seed}"
    )
    if s.extras.get("stopped_early"):
        reason = s.extras.get("stop_reason") or "limit"
        line += f"; search stopped early ({reason})"
    return line


def _ran(report: Report) -> list[str]:
    """The strategies that ran an order (all of them for a report without accounts): one
    announced but stopped before its first order is not named as if it ran."""
    accounts = {
        a.get("strategy"): a
        for a in report.stats.extras.get("coverage") or []
        if isinstance(a, dict)
    }
    if not accounts:
        return list(report.stats.strategies)
    return [
        s
        for s in report.stats.strategies
        if s not in accounts or accounts[s].get("orders_run") or accounts[s].get("recovery_orders")
    ]


def coverage_lines(report: Report) -> list[str]:
    """Per strategy after the original order (and the short orders that timed it), what
    it promised and what ran."""
    accounts = report.stats.extras.get("coverage") or []
    return (
        [
            f"  coverage of {replan.describe(a, len(report.tests))}"
            for a in accounts
            if isinstance(a, dict) and a.get("strategy") not in ("original", TIMING_STRATEGY)
        ]
        + [
            f"  original order: {', '.join(sorted(a['lost_to']))} cut it short; "
            f"{a['recovery_orders']} recovery order(s) ran the tests after"
            for a in accounts
            if isinstance(a, dict) and a.get("strategy") == "original" and a.get("lost_to")
        ]
        + collection_lines(report.stats.extras.get(COLLECTION_STATS))
    )


def collection_lines(said: object) -> list[str]:
    if not isinstance(said, dict) or not said.get("files"):
        return []
    run, files = said.get("run"), said.get("files")
    rest = "" if run == files else " (the rest did not fit its share of the budget)"
    most = said.get("most")
    how = (
        f"run in {said.get('runs')} fresh pytests of up to {most} files"
        if isinstance(most, int) and most > 1
        else "run alone as `pytest FILE`"
    )
    return [f"  collection check: {run} of {files} test files {how}{rest}"]


def _breakdown(total: int, extras: dict[str, Any]) -> str:
    search, classify = extras.get("search_orders"), extras.get("classify_orders", 0)
    if not isinstance(search, int) or not isinstance(classify, int):
        return ""
    confirm = total - search - classify
    if confirm < 0:
        return ""
    parts = [f"{search} searching", f"{confirm} confirming"]
    if classify:
        parts.append(f"{classify} classifying")
    return f" ({', '.join(parts)})"
