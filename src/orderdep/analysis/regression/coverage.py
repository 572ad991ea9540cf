"""Per-test coverage for the regression-testing algorithms (002 §2.1: T1-T4, S1-S6, P2).

The suite runs ONCE, in its original order, through the engine with a probe (this
module, loaded in the child) that switches coverage.py's dynamic context to the test id
right before each test's setup and back after its teardown, so fixture setup and
teardown lines are credited to the test that caused them. Module-level code executed at
collection belongs to no test.

Elements per test (002 Table 1-2 granularities):

* statements: ``(file, line)`` pairs, files relative to the project, posix separators;
* functions: ``(file, qualname)``, each line mapped to its innermost enclosing function
  by ``ast`` (lines outside every function map to ``<module>``, as in
  :mod:`orderdep.core.selection`).

The data also keeps each test's duration and outcome from that run (P2 and shard
balancing use the durations) and the function line ranges of the measured files *at
that version*, which selection needs later to map a diff's old lines to functions.
Stored as ``.orderdep/coverage.json`` (schema ``orderdep.coverage/1``).
"""

from __future__ import annotations

import ast
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from orderdep.core.jsonfile import load_json_file, write_text_file
from orderdep.core.outcomes import OrderResult
from orderdep.core.selection import function_coverage
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import EngineError, ReportError, UsageError

SCHEMA = "orderdep.coverage/1"
#: Where ``orderdep coverage`` writes, relative to the project.
DEFAULT_PATH = Path(".orderdep") / "coverage.json"
COVERAGE_COMMAND = "orderdep coverage"
_PROBE_MODULE = __name__
#: How the probe says that coverage.py cannot be imported where the tests run.
NO_COVERAGE = "orderdep coverage: coverage.py is not installed in the test process's Python"

PathLike = Union[str, "os.PathLike[str]"]
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    FunctionRange = tuple[str, int, int]


@dataclass
class CoverageData:
    """Per-test coverage, durations and outcomes of one run of the original order."""

    tests: list[str]
    statements: dict[str, dict[str, list[int]]]  # test -> file -> sorted lines
    functions: dict[str, dict[str, list[str]]]  # test -> file -> sorted qualnames
    durations: dict[str, float]
    outcomes: dict[str, str] = field(default_factory=dict)
    function_ranges: dict[str, list[FunctionRange]] = field(default_factory=dict)
    project: str = ""

    def statement_coverage(self) -> dict[str, frozenset[tuple[str, int]]]:
        """Test -> ``(file, line)`` elements (T1, T2, S1-S3)."""
        return {
            t: frozenset((f, n) for f, lines in self.statements.get(t, {}).items() for n in lines)
            for t in self.tests
        }

    def function_coverage(self) -> dict[str, frozenset[tuple[str, str]]]:
        """Test -> ``(file, qualname)`` elements (T3, T4, S4-S6)."""
        return {
            t: frozenset((f, q) for f, names in self.functions.get(t, {}).items() for q in names)
            for t in self.tests
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "project": self.project,
            "tests": list(self.tests),
            "durations": {t: round(self.durations.get(t, 0.0), 6) for t in self.tests},
            "outcomes": {t: self.outcomes[t] for t in self.tests if t in self.outcomes},
            "statements": {t: self.statements.get(t, {}) for t in self.tests},
            "functions": {t: self.functions.get(t, {}) for t in self.tests},
            "function_ranges": {f: [list(r) for r in rs] for f, rs in self.function_ranges.items()},
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "coverage data") -> CoverageData:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else data
            raise ReportError(
                f"{source} is not {SCHEMA!r} data (found {found!r}); "
                f"re-create it with `{COVERAGE_COMMAND}`."
            )
        try:
            tests = [str(t) for t in data["tests"]]
            return cls(
                tests=tests,
                statements={
                    t: {f: [int(n) for n in ns] for f, ns in files.items()}
                    for t, files in data["statements"].items()
                },
                functions={
                    t: {f: [str(q) for q in qs] for f, qs in files.items()}
                    for t, files in data["functions"].items()
                },
                durations={t: float(s) for t, s in data["durations"].items()},
                outcomes={t: str(o) for t, o in data.get("outcomes", {}).items()},
                function_ranges={
                    f: [(str(q), int(a), int(b)) for q, a, b in rs]
                    for f, rs in data.get("function_ranges", {}).items()
                },
                project=str(data.get("project", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportError(
                f"{source} is malformed ({type(exc).__name__}: {exc}); "
                f"re-create it with `{COVERAGE_COMMAND}`."
            ) from None


def save_coverage(path: PathLike, data: CoverageData) -> None:
    text = json.dumps(data.to_json(), sort_keys=True) + "\n"
    write_text_file(path, text, "coverage data", "--output PATH")


def load_coverage(path: PathLike) -> CoverageData:
    """Read a coverage file written by :func:`save_coverage`."""
    hint = f"run `{COVERAGE_COMMAND}` in the project first."
    raw = load_json_file(path, "coverage data", hint)
    return CoverageData.from_json(raw, source=f"coverage data {str(path)!r}")


def load_durations(path: PathLike) -> dict[str, float]:
    """Durations from a coverage file or a plain JSON ``{test id: seconds}`` file."""
    p = Path(path)
    raw = load_json_file(p, "durations file", "give a JSON file {test id: seconds}.")
    if isinstance(raw, dict) and raw.get("schema") == SCHEMA:
        raw = raw.get("durations", {})
    if not isinstance(raw, dict):
        raise ReportError(
            f"durations file {str(p)!r} must hold a JSON object {{test id: seconds}}, got {raw!r}."
        )
    out: dict[str, float] = {}
    for test, seconds in raw.items():
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not 0 <= seconds < math.inf
        ):
            raise ReportError(
                f"durations file {str(p)!r}: the duration of {test!r} must be a "
                f"non-negative number of seconds (not infinite or NaN), got {seconds!r}."
            )
        out[str(test)] = float(seconds)
    return out


# --- lines to functions ---------------------------------------------------------------------


def function_ranges(source: str, filename: str = "<source>") -> list[FunctionRange]:
    """``(qualname, first line, last line)`` of every function in ``source``.

    Qualnames follow Python's (``Cls.method``, ``outer.<locals>.inner``); a function's
    range starts at its first decorator. A file that does not parse has no functions.
    """
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError):
        return []
    out: list[FunctionRange] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((name, start, child.end_lineno or child.lineno))
                visit(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def project_function_ranges(root: Path, files: Sequence[str]) -> dict[str, list[FunctionRange]]:
    """Function ranges of ``files`` (relative to ``root``) as they are on disk now."""
    out: dict[str, list[FunctionRange]] = {}
    for rel in files:
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        out[rel] = function_ranges(text, rel)
    return out


# --- collection -----------------------------------------------------------------------------


def collect_coverage(
    executor: Executor,
    project: PathLike,
    *,
    source: Sequence[str] = (),
) -> CoverageData:
    """Run the suite once in original order with the coverage probe; build the data.

    ``source`` lists directories or files (relative to the project) to measure; by
    default everything under the project (code under test and tests alike).
    """
    root = Path(project).resolve()
    order = executor.suite.ids
    spec = ProbeSpec(_PROBE_MODULE, {"source": list(source) or ["."]})
    result = executor.run(order, probe=spec)
    return coverage_from_result(result, root)


def coverage_from_result(result: OrderResult, root: Path) -> CoverageData:
    """Turn the probe's answer and the results of the coverage run into :class:`CoverageData`."""
    probe = result.probe or {}
    error = str(probe.get("error") or "")
    if NO_COVERAGE in error:  # the message, not the traceback around it
        raise EngineError(error[error.index(NO_COVERAGE) :].splitlines()[0])
    if error:
        raise EngineError(f"per-test coverage failed in the test process:\n{error}")
    if "lines" not in probe:
        raise EngineError(
            "the coverage run returned no per-test coverage (the run was cut short or the "
            "probe did not load); rerun with --runner subprocess to see the test output."
        )
    lines: Mapping[str, Mapping[str, Sequence[int]]] = probe["lines"]
    tests = list(dict.fromkeys(result.order))
    statements = {
        t: {f: sorted(set(ns)) for f, ns in sorted(lines.get(t, {}).items())} for t in tests
    }
    files = sorted({f for per in statements.values() for f in per})
    ranges = project_function_ranges(root, files)
    stmt_cov = {t: {(f, n) for f, ns in per.items() for n in ns} for t, per in statements.items()}
    func_cov = function_coverage(stmt_cov, ranges)
    functions: dict[str, dict[str, list[str]]] = {}
    for t in tests:
        per: dict[str, list[str]] = {}
        for element in func_cov.get(t, frozenset()):
            f, q = cast("tuple[str, str]", element)
            per.setdefault(f, []).append(q)
        functions[t] = {f: sorted(qs) for f, qs in sorted(per.items())}
    durations: dict[str, float] = {}
    outcomes: dict[str, str] = {}
    for r in result.results:
        durations[r.test] = durations.get(r.test, 0.0) + r.duration
        outcomes[r.test] = r.outcome.value
    return CoverageData(
        tests=tests,
        statements=statements,
        functions=functions,
        durations=durations,
        outcomes=outcomes,
        function_ranges={f: rs for f, rs in ranges.items() if rs},
        project=str(root),
    )


# --- the probe (runs inside the test process) ------------------------------------------------


class CoverageProbe:
    """Switches coverage.py's dynamic context to each test around its setup..teardown."""

    def __init__(self, options: Mapping[str, Any], rootdir: str) -> None:
        try:
            import coverage  # only in the test process
        except ImportError as exc:
            raise ImportError(
                f"{NO_COVERAGE} ({sys.executable}): install it there with `{sys.executable} "
                "-m pip install 'coverage>=7.3'` (or `pip install 'orderdep[coverage]'` in "
                "the project's venv)"
            ) from exc

        # The engine starts the test process in the project's working copy.
        self.base = os.getcwd()
        sources = [os.path.join(self.base, s) for s in options.get("source") or ["."]]
        self.cov = coverage.Coverage(
            data_file=None,
            source=sources,
            config_file=False,
            omit=[os.path.join(self.base, ".orderdep", "*")],
        )
        self.cov.start()

    def before_test(self, index: int, test_id: str) -> None:
        self.cov.switch_context(test_id)

    def after_test(self, index: int, test_id: str) -> None:
        self.cov.switch_context("")

    def result(self) -> dict[str, Any]:
        self.cov.stop()
        data = self.cov.get_data()
        out: dict[str, dict[str, list[int]]] = {}
        for path in sorted(data.measured_files()):
            rel = os.path.relpath(path, self.base)
            if rel.startswith(os.pardir):
                continue
            rel = Path(rel).as_posix()
            for line, contexts in data.contexts_by_lineno(path).items():
                for context in contexts:
                    if context:
                        out.setdefault(context, {}).setdefault(rel, []).append(line)
        return {"lines": out}


def make_probe(options: dict[str, Any], rootdir: str) -> CoverageProbe:
    """Entry point the engine calls in the test process (see :mod:`orderdep.engine.probe`)."""
    return CoverageProbe(options, rootdir)


def resolve_path(project: Path, given: Optional[PathLike]) -> Path:
    """``given`` (relative to the current directory) or the project's default file."""
    if given is None:
        return Path(project) / DEFAULT_PATH
    p = Path(given)
    if p.is_dir():
        raise UsageError(f"coverage path {str(p)!r} is a directory; give a file name")
    return p
