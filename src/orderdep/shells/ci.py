"""What ``orderdep detect`` needs in continuous integration (see docs/ci.md).

* :func:`changed_tests`: the tests a change touched since a base revision: tests in files
  ``git diff --name-only BASE`` names (and new, untracked files), plus tests whose
  recorded coverage (``orderdep coverage``) covers a changed line of the base version
  (selection S1, :mod:`orderdep.core.selection`).
* :class:`Progress`: where the fixed-set strategies stopped, kept in
  ``.orderdep/ci-progress.json`` so the next run (with the cached ``.orderdep/``)
  continues there instead of starting over.
* :func:`junit_xml`: a JUnit XML file, one failing test case per order-dependent and
  non-idempotent test, the reproduce command in its message (a skipped one for a test
  the baseline knows, :mod:`orderdep.shells.ci_baseline`).
* :func:`github_annotations`: ``::error file=...,line=...::`` workflow commands
  (``::notice`` for known tests).

:func:`ci_options` are ``orderdep detect``'s options for all this; :func:`changed_setup`
and :func:`write_ci_outputs` are the command's two steps.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar
from xml.etree import ElementTree as ET

import click
from rich.console import Console

from orderdep.core.baseline import Verdict
from orderdep.core.jsonfile import write_text_file
from orderdep.core.promise import shortfalls
from orderdep.core.report import Report
from orderdep.core.suite import split_node_id
from orderdep.errors import UsageError
from orderdep.shells.summary import Printer

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_FILE = Path(".orderdep") / "ci-progress.json"
COVERAGE_FILE = Path(".orderdep") / "coverage.json"  # orderdep coverage's default


# --- the change -------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    cmd = ["git", "-C", str(root), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
    except FileNotFoundError:
        raise UsageError("git is not installed; --changed needs it (or drop --changed)") from None
    if proc.returncode != 0:
        raise UsageError(
            f"`git {' '.join(args)}` failed in {str(root)!r}: {proc.stderr.strip()}; give "
            "--base a revision that exists there (in CI fetch it first, e.g. "
            "`git fetch origin main`)"
        )
    return proc.stdout


def fork_point(root: Path, base: str) -> str:
    """Where the current branch left ``base`` (``git merge-base``): changes made on
    ``base`` since then are not the pull request's. ``base`` itself when unrelated."""
    try:
        _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    except UsageError:
        raise UsageError(
            f"--base {base!r} is not a revision of the repository at {str(root)!r}; give one "
            "that exists there (in CI fetch it first, e.g. `git fetch origin main`)"
        ) from None
    try:
        return _git(root, "merge-base", base, "HEAD").strip() or base
    except UsageError:  # no common history (or no HEAD yet): compare with base itself
        return base


def changed_files(root: Path, base: str) -> set[str]:
    """Files (relative to ``root``) changed since ``base``, and new untracked ones."""
    diff = _git(root, "diff", "--name-only", "--no-renames", "--relative", base, "--")
    new = _git(root, "ls-files", "--others", "--exclude-standard")
    return {line for line in (diff + new).splitlines() if line}


@dataclass(frozen=True)
class Change:
    """The tests a change touches, and why each was chosen."""

    in_files: list[str]  # tests in changed files
    by_coverage: list[str]  # other tests covering a changed line

    @property
    def tests(self) -> list[str]:
        return [*self.in_files, *self.by_coverage]


def changed_tests(
    root: Path, base: str, ids: Sequence[str], coverage_file: Optional[Path]
) -> Change:
    """The tests of ``ids`` (node ids relative to ``root``) that the change touches."""
    base = fork_point(root, base)
    files = changed_files(root, base)
    in_files = [t for t in ids if split_node_id(t)[0] in files]
    by_coverage: list[str] = []
    if coverage_file is not None and coverage_file.is_file():
        from orderdep.analysis.regression.coverage import load_coverage
        from orderdep.core import selection
        from orderdep.shells.commands.regression_cmds import git_changed_lines

        data = load_coverage(coverage_file)
        lines = git_changed_lines(root, base)  # `orderdep select`'s reading of the change
        known = [t for t in data.tests if t in set(ids)]
        picked = selection.run_algorithm(
            "S1", known, data.statement_coverage(), lines, functions=data.function_ranges
        )
        chosen = set(in_files)
        by_coverage = [t for t in picked if t not in chosen]
    return Change(in_files, by_coverage)


# --- progress across runs -----------------------------------------------------------------------


class Progress:
    """``{job: {strategy: next order index}}`` in ``.orderdep/ci-progress.json``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}  # none yet, or unreadable: start from the beginning
        self.data: dict[str, dict[str, int]] = data if isinstance(data, dict) else {}

    def start_at(self, job: str) -> dict[str, int]:
        entry = self.data.get(job)
        if not isinstance(entry, dict):
            return {}
        return {k: v for k, v in entry.items() if isinstance(v, int) and k != "changed-pairs"}

    def save(self, job: str, next_order: Mapping[str, int]) -> None:
        self.data[job] = dict(next_order)
        text = json.dumps(self.data, indent=2, sort_keys=True) + "\n"
        write_text_file(self.path, text, "CI progress file", "--store")


# --- output for CI ------------------------------------------------------------------------------


def locate_test(root: Path, test: str) -> tuple[str, int]:
    """The test's file (relative) and the line of its ``def`` (1 when not found)."""
    module, classes, name = split_node_id(test)
    try:
        tree = ast.parse((root / module).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return module, 1
    body: list[ast.stmt] = tree.body
    line = 1
    for part in [*classes, name.partition("[")[0]]:
        found = next(
            (
                n
                for n in body
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == part
            ),
            None,
        )
        if found is None:
            return module, line
        line, body = found.lineno, found.body
    return module, line


Verdicts = Optional[Mapping[str, Verdict]]


def _problems(
    report: Report, reproduce: Mapping[str, str], verdicts: Verdicts = None
) -> list[tuple[str, str, bool]]:
    """(test, one-line message, whether it fails the check) per OD and NIO test; with a
    baseline's ``verdicts``, only new ones fail and the message starts with the verdict."""
    out = []
    for finding in report.od_tests:
        kind = finding.kind or "order-dependent test"
        partners = finding.polluters or finding.state_setters
        why = f"; with {', '.join(partners[:3])}" if partners else ""
        out.append((finding.test, f"{kind}{why}: fails in one order, passes in another"))
    for test in report.nio_tests:
        out.append((test, "non-idempotent: passes once, fails when run again"))
    said = [(t, f"{m}; reproduce: {reproduce[t]}" if t in reproduce else m) for t, m in out]
    if verdicts is None:
        return [(t, m, True) for t, m in said]
    return [
        (t, f"{verdicts[t].reason}: {m}", verdicts[t].new) if t in verdicts else (t, m, True)
        for t, m in said
    ]


def junit_xml(
    report: Report,
    reproduce: Mapping[str, str],
    allow_incomplete: bool = False,
    verdicts: Verdicts = None,
) -> str:
    """JUnit XML: one failing test case per OD and NIO test (none: one passing case), a
    skipped one per test a baseline knows; a search that did not run whole adds a case
    ``search incomplete`` in error (skipped with ``allow_incomplete``) that says what did
    not run."""
    problems = _problems(report, reproduce, verdicts)
    gaps = shortfalls(report)
    suite = ET.Element(
        "testsuite",
        name="orderdep",
        tests=str(max(1, len(problems) + bool(gaps))),
        failures=str(sum(fails for _, _, fails in problems)),
        skipped=str(sum(not fails for _, _, fails in problems)),
        errors="1" if gaps and not allow_incomplete else "0",
        time=f"{report.stats.wall_seconds:.3f}",
    )
    if gaps:
        case = ET.SubElement(suite, "testcase", classname="orderdep", name="search incomplete")
        said = "the search did not run whole: " + "; ".join(gaps)
        kind = "skipped" if allow_incomplete else "error"
        element = ET.SubElement(case, kind, message=said, type="incomplete-search")
        element.text = said
    for test, message, fails in problems:
        module, _, _ = split_node_id(test)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=module.removesuffix(".py").replace("/", "."),
            name=test.split("::", 1)[-1],
            file=module,
        )
        kind = "failure" if fails else "skipped"
        failure = ET.SubElement(case, kind, message=message, type="order-dependent")
        failure.text = message
    if not problems and not gaps:
        ET.SubElement(suite, "testcase", classname="orderdep", name="no order-dependent tests")
    suites = ET.Element("testsuites")
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _escape(text: str, *, prop: bool = False) -> str:
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def github_annotations(
    root: Path, report: Report, reproduce: Mapping[str, str], verdicts: Verdicts = None
) -> list[str]:
    """GitHub Actions ``::error`` commands, one per OD and NIO test (``::notice`` for one
    a baseline knows), at its ``def`` line; first a ``::warning`` when the search did not
    run whole."""
    lines = []
    gaps = shortfalls(report)
    if gaps:
        said = "the search did not run whole: " + "; ".join(gaps)
        lines.append(f"::warning title=orderdep%3A search incomplete::{_escape(said)}")
    for test, message, fails in _problems(report, reproduce, verdicts):
        file, line = locate_test(root, test)
        title = _escape(f"orderdep: {test}", prop=True)
        level = "error" if fails else "notice"
        lines.append(f"::{level} file={_escape(file, prop=True)},line={line},title={title}::"
                     f"{_escape(message)}")  # fmt: skip
    return lines


# --- the command's options and steps ----------------------------------------------------------


def ci_options(func: F) -> F:
    """``--changed``, ``--base`` and ``--junitxml`` of ``orderdep detect``."""
    options = [
        click.option(
            "--changed",
            is_flag=True,
            help="For pull requests: first run every pair between a test the change touched "
            "(in a file changed since --base, or covering a changed line when `orderdep "
            "coverage` data exists) and every other test, both ways; then the usual search. "
            "Seed 0 unless --seed; continues across runs where the last one stopped.",
        ),
        click.option(
            "--base",
            default="HEAD",
            show_default=True,
            metavar="REF",
            help="With --changed: the revision the change is measured from (e.g. origin/main); "
            "HEAD means uncommitted changes and new files.",
        ),
        click.option(
            "--junitxml",
            "junit_file",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            metavar="FILE",
            help="Also write JUnit XML: each order-dependent test a failing test case with its "
            "reproduce command (GitHub Actions annotations are printed when GITHUB_ACTIONS=true; "
            "default: no JUnit XML).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def check_ci_options(changed: bool) -> None:
    """``--base`` means nothing without ``--changed``."""
    from orderdep.shells.config import given_by_user

    if not changed and given_by_user(click.get_current_context(), "base"):
        raise UsageError("--base only applies with --changed; add --changed or drop --base")


def changed_setup(
    engine: Any, params: dict[str, Any], base: str, notice: Any
) -> tuple[list[str], Optional[Progress]]:
    """The tests the change touched (``--changed``) and the progress of earlier runs."""
    project = Path(params["project"]).resolve()
    suite = engine.suite
    root = Path(suite.rootdir) if suite.rootdir else project
    change = changed_tests(root, base, suite.ids, project / COVERAGE_FILE)
    store = params.get("store_path")
    progress = Progress(
        (Path(store).parent if store else project / ".orderdep") / PROGRESS_FILE.name
    )
    if change.tests:
        notice(
            f"orderdep: --changed since {base}: {len(change.in_files)} test(s) in changed "
            f"files, {len(change.by_coverage)} more covering changed lines; their pairs "
            "with every other test run first"
        )
    else:
        notice(f"orderdep: --changed since {base}: no test touched; running the usual search")
    return change.tests, progress


def write_ci_outputs(
    report: Report,
    reproduce: dict[str, str],
    junit_file: Optional[Path],
    root: Path,
    allow_incomplete: bool = False,
    verdicts: Verdicts = None,
) -> None:
    """``--junitxml`` and, on GitHub Actions, the annotations."""
    if junit_file is not None:
        xml = junit_xml(report, reproduce, allow_incomplete, verdicts)
        write_text_file(junit_file, xml, "JUnit XML file", "--junitxml")
        Printer(Console()).line(f"JUnit XML: {junit_file}")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in github_annotations(root, report, reproduce, verdicts):
            click.echo(line)
