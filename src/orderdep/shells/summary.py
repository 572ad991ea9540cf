"""The terminal summary of a report: what was found and the commands that reproduce it.

Plain text through rich (no markup: test ids contain brackets), never wrapped, so every
printed command can be copied, or parsed by a test, as one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from rich.console import Console
from rich.text import Text

from orderdep.core import replan
from orderdep.core.report import ODFinding, Report
from orderdep.shells.explain import sentence


def _n(count: int, word: str, plural: Optional[str] = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def describe(finding: ODFinding) -> str:
    """One line on an OD test: its kind and explanation when classified, else what the
    confirmed orders show about running it alone."""
    if finding.kind is not None:
        return sentence(finding)
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
    reproduce: Mapping[str, str],
    report_path: Optional[str] = None,
) -> None:
    """Print the findings of ``report``.

    ``reproduce`` maps an OD or NIO test id to the command that reproduces its failure;
    each OD test's entry ends with it.
    """
    out = Printer(console)
    if report.od_tests:
        out.line(f"{_n(len(report.od_tests), 'order-dependent test')}:", "bold red")
        index = {t: i for i, t in enumerate(report.tests)}
        for finding in sorted(report.od_tests, key=lambda f: index.get(f.test, len(index))):
            kind = f"  [{finding.kind}]" if finding.kind else ""
            out.line(f"  {finding.test}{kind}", "bold")
            out.line(f"    {describe(finding)}")
            if finding.test in reproduce:
                out.line(f"    reproduce: {reproduce[finding.test]}")
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
            if test in reproduce:
                out.line(f"    reproduce: {reproduce[test]}")
    _listing(out, "non-deterministic (its outcome changed within one order)", report.nd_tests)
    _listing(out, "always failing (also alone)", report.always_failing)
    out.line(stats_line(report))
    for line in coverage_lines(report):
        out.line(line)
    if report_path is not None:
        out.line(f"report: {report_path}")


def _listing(out: Printer, title: str, tests: Sequence[str]) -> None:
    if tests:
        out.line(f"{_n(len(tests), 'test')} {title}:", "yellow")
        for test in tests:
            out.line(f"  {test}")


def stats_line(report: Report) -> str:
    """What the report cost and how to reproduce it: orders, executions, time, seed."""
    s = report.stats
    line = (
        f"{' + '.join(s.strategies) or 'no strategy'}: {_n(s.orders_run, 'order')}, "
        f"{_n(s.test_executions, 'test execution')} in {s.wall_seconds:.1f} s; seed {s.seed}"
    )
    if s.extras.get("stopped_early"):
        reason = s.extras.get("stop_reason") or "limit"
        line += f"; search stopped early ({reason})"
    return line


def coverage_lines(report: Report) -> list[str]:
    """Per strategy after the original order, what it promised and what ran."""
    accounts = report.stats.extras.get("coverage") or []
    return [
        f"  coverage of {replan.describe(a)}"
        for a in accounts
        if isinstance(a, dict) and a.get("strategy") != "original"
    ] + [
        f"  original order: {', '.join(sorted(a['lost_to']))} cut it short; "
        f"{a['recovery_orders']} recovery order(s) ran the tests after"
        for a in accounts
        if isinstance(a, dict) and a.get("strategy") == "original" and a.get("lost_to")
    ]
