"""``orderdep detect``'s baseline: the order-dependent tests a repository already has, so
that a pull request fails only for those it adds or makes worse (see docs/ci.md and
:mod:`orderdep.core.baseline`).

Known are the tests of the files given with ``--baseline`` (reports or dependencies
files) and, with ``--changed``, the entries of the dependencies file
(``PROJECT/orderdep-deps.json``) as committed where the change left ``--base`` and as the
change leaves it (a dependency the change declares there is one its review saw).
``--no-baseline`` turns all of it off: every finding fails the check.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import click

from orderdep.core.baseline import Baseline, Verdict, judge
from orderdep.core.depsfile import DEFAULT_DEPS, parse_deps
from orderdep.core.depsfile import SCHEMA as DEPS_SCHEMA
from orderdep.core.jsonfile import load_json_file
from orderdep.core.report import SCHEMA as REPORT_SCHEMA
from orderdep.core.report import Report
from orderdep.errors import UsageError
from orderdep.shells.config import given_by_user
from orderdep.shells.output import notice

F = TypeVar("F", bound=Callable[..., Any])


def baseline_options(func: F) -> F:
    """``--baseline FILE`` (repeatable) and ``--no-baseline``."""
    options = [
        click.option(
            "--baseline",
            "baseline_files",
            multiple=True,
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE",
            help="Order-dependent tests already known: a report (e.g. the base branch's "
            ".orderdep/report.json) or a dependencies file; they become notices and only new "
            "or worse ones fail (exit 1, JUnit failures, ::error). Repeatable. Default: with "
            f"--changed, {DEFAULT_DEPS} as committed at --base and as changed, if present.",
        ),
        click.option(
            "--no-baseline",
            is_flag=True,
            help="Every order-dependent test found fails, known or not (no baseline).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _read(path: Path) -> Any:
    return load_json_file(path, "baseline file", "give a report or a dependencies file")


def add_file(baseline: Baseline, data: Any, source: str) -> None:
    """A report or a dependencies file's JSON, by its schema."""
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema == REPORT_SCHEMA:
        baseline.add_report(Report.from_json(data, source=source), source)
    elif schema == DEPS_SCHEMA:
        baseline.add_deps(parse_deps(data, source=source), source)
    else:
        raise UsageError(
            f"{source} has schema {schema!r}, neither {REPORT_SCHEMA!r} nor {DEPS_SCHEMA!r}; "
            "give a report (orderdep detect) or a dependencies file (orderdep deps)"
        )


def committed_deps(project: Path, revision: str) -> Optional[Any]:
    """The dependencies file's JSON as committed at ``revision`` (None: not there)."""
    proc = subprocess.run(
        ["git", "-C", str(project), "show", f"{revision}:./{DEFAULT_DEPS}"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    if proc.returncode != 0:
        return None
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{DEFAULT_DEPS} at {revision} is not valid JSON ({exc.msg}, line {exc.lineno}); "
            "give --baseline FILE or --no-baseline"
        ) from None


def load_baseline(
    project: Path,
    files: tuple[Path, ...],
    no_baseline: bool,
    base: Optional[str],
    fork: Callable[[Path, str], str],
) -> Optional[Baseline]:
    """The baseline the options name (None: none, every finding fails). ``base`` is
    ``--base`` under ``--changed`` (else None); ``fork`` finds where the change left it."""
    if no_baseline:  # a configured baseline gives way; one typed with it is a mistake
        ctx = click.get_current_context(silent=True)
        if files and ctx is not None and given_by_user(ctx, "baseline_files"):
            raise UsageError("give --baseline FILE or --no-baseline, not both")
        return None
    baseline = Baseline()
    for path in files:
        add_file(baseline, _read(path), f"{path}")
    if base is not None and not files:
        committed = committed_deps(project, fork(project, base))
        if committed is not None:
            add_file(baseline, committed, f"{DEFAULT_DEPS} at {base}")
        if (project / DEFAULT_DEPS).is_file():
            add_file(baseline, _read(project / DEFAULT_DEPS), DEFAULT_DEPS)
    if baseline:
        notice(
            f"orderdep: baseline: {len(baseline.tests) + len(baseline.nio)} known test(s) from "
            f"{', '.join(baseline.sources)}; only new or worse ones fail"
        )
    return baseline or None


def verdicts_of(report: Report, baseline: Optional[Baseline]) -> Optional[dict[str, Verdict]]:
    return judge(report, baseline) if baseline is not None else None


def baseline_lines(verdicts: Optional[Mapping[str, Verdict]]) -> list[str]:
    """The summary's lines on the baseline: how many findings are known, which are new."""
    if verdicts is None:
        return []
    known = [v for v in verdicts.values() if not v.new]
    new = [v for v in verdicts.values() if v.new]
    lines = [f"baseline: {len(known)} known (notices), {len(new)} new or worse (fail the check)"]
    lines += [f"  {v.test}: {v.reason}" for v in new]
    return lines
