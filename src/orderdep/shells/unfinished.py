"""What a command stopped by its budget (or Ctrl-C) left undone, and how to go on.

The library marks unfinished work in the report (``stats.unfinished`` for confirmation,
``unfinished`` in a finding for classification, see :mod:`orderdep.analysis.budget`);
these helpers turn the marks into the lines a command prints after its summary.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Optional

import click

from orderdep.analysis.budget import UNFINISHED_KEY
from orderdep.core.promise import shortfalls
from orderdep.core.report import Report


def unfinished_items(report: Report, search: bool = False) -> list[str]:
    """One line per unfinished item: ``TEST: cleaners not searched (budget)``; with
    ``search`` (the command searched), first what of the promised search did not run
    (:func:`orderdep.core.promise.shortfalls`)."""
    out = []
    stats = report.stats.extras.get(UNFINISHED_KEY)
    if search:
        out += shortfalls(report)
    elif isinstance(stats, dict) and "confirmation" in stats:
        suspects = stats.get("suspects") or []
        out.append(f"{len(suspects)} suspect(s): confirmation {stats['confirmation']}")
    for finding in report.od_tests:
        marks = finding.extras.get(UNFINISHED_KEY)
        if isinstance(marks, dict):
            for what, why in marks.items():
                out.append(f"{finding.test}: {what.replace('_', ' ')} {why}")
    return out


def command_argv() -> list[str]:
    """The arguments the running command was given (as ``main(argv)`` received them)."""
    obj = click.get_current_context().find_root().obj
    return list(obj.get("argv", [])) if isinstance(obj, dict) else []


def resume_command(argv: Sequence[str], seed: Optional[int] = None) -> str:
    """The command that resumes: the same arguments, with the seed that names the job."""
    args = list(argv)
    if seed is not None and "--seed" not in args and not any(a.startswith("--seed=") for a in args):
        args += ["--seed", str(seed)]
    return shlex.join(["orderdep", *args])


def unfinished_lines(
    report: Report, argv: Sequence[str], seed: Optional[int] = None, search: bool = False
) -> list[str]:
    """The lines to print when the report is unfinished (none when it is complete); with
    ``search``, the promised search's shortfalls count (see :func:`unfinished_items`)."""
    items = unfinished_items(report, search)
    if not items:
        return []
    lines = [f"orderdep: stopped before the end; {len(items)} item(s) unfinished:"]
    lines += [f"  {item}" for item in items]
    lines.append(
        "orderdep: finished orders are replayed from the store; a larger --budget gets further"
    )
    lines.append(f"orderdep: to go on where it stopped, rerun: {resume_command(argv, seed)}")
    return lines


__all__ = ["command_argv", "resume_command", "unfinished_items", "unfinished_lines"]
