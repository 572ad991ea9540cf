"""The report file (schema ``orderdep.report/1``): what detection and classification found.

Layout::

    {"schema": "orderdep.report/1",
     "project": "<rootdir>",
     "tests": [ids in original order],
     "od_tests": [{"test": id, "kind": "victim" | "brittle" | null,
                   "failing_order": [...], "passing_order": [...],
                   "polluters": [...], "polluter_groups": [[...]],
                   "cleaners": {polluter id or group_key(group): [...]},
                   "state_setters": [...], "state_setter_groups": [[...]],
                   "flake_rate": {"all": null, "grouped": null, "reverse": null}}],
     "nd_tests": [...], "nio_tests": [...], "always_failing": [...],
     "stats": {"orders_run": 0, "test_executions": 0, "wall_seconds": 0.0,
               "seed": 0, "strategies": [...]}}

The vocabulary (victim, brittle, polluter, cleaner, state-setter, groups) is 004 §2 and
iFixFlakies'; :meth:`ODFinding.to_spec` turns a finding into the
:class:`~orderdep.core.odmodel.ODSpec` whose semantics decide pass/fail.

A command stopped by its budget or Ctrl-C adds (optional keys, kept by every reader):
``"unfinished": {"cleaners": "not searched (budget)", ...}`` in a finding, and
``"classify_stopped"`` or ``"unfinished": {"confirmation": ..., "suspects": [...]}`` in
``stats``; rerunning the command completes the report and removes them. Detection also
records what it promised and what of it did not run (``"promised"``, per strategy
``"orders_promised"`` and ``"unrun_positions"`` in ``"coverage"``, and the sentences in
``"shortfalls"``; see :mod:`orderdep.core.promise`).

Output is stable: ids that form sets are written in suite order, cleaner maps by key,
orders and group members exactly as found. Keys this module does not know (added by
later features, e.g. ``"evidence"``) are kept and written back unchanged.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from orderdep.core.finding import (
    CLASSIFY_COMMAND,
    COLLECTED_KEY,
    FLAKE_RATE_KEYS,
    OWN_FILE_KEY,
    ODFinding,
    suite_sorted,
)
from orderdep.core.json_values import (
    expect_float,
    expect_ids,
    expect_int,
    expect_object,
    expect_str,
)
from orderdep.core.jsonfile import load_json_file, write_text_file
from orderdep.errors import ReportError

# re-exported: readers of other files import load_json_file from here, and the finding's
# names come with the report that holds it
__all__ = [
    "CLASSIFY_COMMAND",
    "COLLECTED_KEY",
    "FLAKE_RATE_KEYS",
    "OWN_FILE_KEY",
    "ODFinding",
    "load_json_file",
]

SCHEMA = "orderdep.report/1"
#: In a report's ``stats.extras``: {"files", "run", "found"} of ``detect``'s collection
#: check (each test file run as ``pytest FILE`` runs it).
COLLECTION_CHECK_KEY = "collection_check"
# The command that writes a report (named in error messages).
DETECT_COMMAND = "orderdep detect"

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class RunStats:
    """What producing the report cost, and the seed that reproduces it."""

    orders_run: int = 0
    test_executions: int = 0
    wall_seconds: float = 0.0
    seed: int = 0
    strategies: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "orders_run": self.orders_run,
            "test_executions": self.test_executions,
            "wall_seconds": round(self.wall_seconds, 6),
            "seed": self.seed,
            "strategies": list(self.strategies),
        }
        for key in sorted(self.extras):
            out.setdefault(key, self.extras[key])
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "stats") -> RunStats:
        obj = expect_object(data, where)
        known = {"orders_run", "test_executions", "wall_seconds", "seed", "strategies"}
        return cls(
            orders_run=expect_int(obj.get("orders_run", 0), f"{where}.orders_run"),
            test_executions=expect_int(obj.get("test_executions", 0), f"{where}.test_executions"),
            wall_seconds=expect_float(obj.get("wall_seconds", 0.0), f"{where}.wall_seconds"),
            seed=expect_int(obj.get("seed", 0), f"{where}.seed"),
            strategies=expect_ids(obj.get("strategies", []), f"{where}.strategies"),
            extras={k: v for k, v in obj.items() if k not in known},
        )


@dataclass
class Report:
    """The whole report: the suite, its OD findings and the other flaky/failing tests."""

    project: str
    tests: list[str]
    od_tests: list[ODFinding] = field(default_factory=list)
    nd_tests: list[str] = field(default_factory=list)
    nio_tests: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)
    stats: RunStats = field(default_factory=RunStats)
    extras: dict[str, Any] = field(default_factory=dict)

    def finding(self, test: str) -> Optional[ODFinding]:
        """The finding for ``test``, or None if it is not an OD test of this report."""
        for f in self.od_tests:
            if f.test == test:
                return f
        return None

    @property
    def od_ids(self) -> list[str]:
        return [f.test for f in self.od_tests]

    def to_json(self) -> dict[str, Any]:
        index = {t: i for i, t in enumerate(self.tests)}
        findings = sorted(self.od_tests, key=lambda f: index.get(f.test, len(index)))
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "project": self.project,
            "tests": list(self.tests),
            "od_tests": [f.to_json(self.tests) for f in findings],
            "nd_tests": suite_sorted(self.nd_tests, index),
            "nio_tests": suite_sorted(self.nio_tests, index),
            "always_failing": suite_sorted(self.always_failing, index),
            "stats": self.stats.to_json(),
        }
        for key in sorted(self.extras):
            out.setdefault(key, self.extras[key])
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Any, source: str = "report") -> Report:
        """Parse and validate a report object; ``source`` (e.g. the path) starts messages."""
        obj = expect_object(data, source)
        schema = obj.get("schema")
        if schema != SCHEMA:
            raise ReportError(
                f"{source} has schema {schema!r}, but this orderdep reads {SCHEMA!r}; "
                f"re-create it with `{DETECT_COMMAND}`."
            )
        for key in ("project", "tests", "od_tests"):
            if key not in obj:
                raise ReportError(
                    f"{source} has no {key!r} key, so it is not a complete {SCHEMA} report; "
                    f"re-create it with `{DETECT_COMMAND}`."
                )
        tests = expect_ids(obj["tests"], f"{source}: tests")
        raw_findings = obj["od_tests"]
        if not isinstance(raw_findings, list):
            raise ReportError(f"{source}: od_tests must be a list, got {raw_findings!r}.")
        findings = [
            ODFinding.from_json(f, f"{source}: od_tests[{i}]") for i, f in enumerate(raw_findings)
        ]
        known = {
            "schema", "project", "tests", "od_tests", "nd_tests", "nio_tests",
            "always_failing", "stats",
        }  # fmt: skip
        report = cls(
            project=expect_str(obj["project"], f"{source}: project"),
            tests=tests,
            od_tests=findings,
            nd_tests=expect_ids(obj.get("nd_tests", []), f"{source}: nd_tests"),
            nio_tests=expect_ids(obj.get("nio_tests", []), f"{source}: nio_tests"),
            always_failing=expect_ids(obj.get("always_failing", []), f"{source}: always_failing"),
            stats=RunStats.from_json(obj.get("stats", {}), f"{source}: stats"),
            extras={k: v for k, v in obj.items() if k not in known},
        )
        report.check_consistent(source)
        return report

    def check_consistent(self, source: str = "report") -> None:
        """Every id the report names is one of its ``tests``; no OD test is listed twice."""
        known = set(self.tests)
        seen: set[str] = set()
        for f in self.od_tests:
            if f.test in seen:
                raise ReportError(
                    f"{source}: OD test {f.test!r} is listed twice in od_tests; "
                    "keep one entry (or re-create the report)."
                )
            seen.add(f.test)
        mentioned: list[tuple[str, str]] = []
        for f in self.od_tests:
            mentioned += [(t, f"od_tests entry for {f.test!r}") for t in sorted(f.mentioned_ids())]
        for name in ("nd_tests", "nio_tests", "always_failing"):
            mentioned += [(t, name) for t in getattr(self, name)]
        for test, where in mentioned:
            if test not in known:
                raise ReportError(
                    f"{source}: {where} names {test!r}, which is not in the report's tests; "
                    f"the file was edited or is damaged: re-create it with `{DETECT_COMMAND}`."
                )


def _same_project(a: str, b: str) -> bool:
    def norm(p: str) -> str:
        return os.path.normcase(os.path.realpath(os.path.abspath(p)))

    return a == b or norm(a) == norm(b)


def load_report(path: PathLike, project: Optional[str] = None) -> Report:
    """Load and validate a report; with ``project`` (a rootdir), refuse another project's."""
    data = load_json_file(path, "report", f"create one with `{DETECT_COMMAND}`.")
    report = Report.from_json(data, source=f"report {str(path)!r}")
    # A report inside the project's own .orderdep/ is that project's wherever it now is
    # (a copy, a fresh clone, a CI checkout); tests it names that are not collected there
    # are caught when the orders run.
    own = _same_project(os.path.dirname(os.path.dirname(os.path.abspath(path))), project or "")
    if project is not None and not own and not _same_project(report.project, project):
        raise ReportError(
            f"report {str(path)!r} is for project {report.project!r}, not {project!r}; "
            f"pass that project's report, or run `{DETECT_COMMAND}` in {project!r}."
        )
    return report


def save_report(path: PathLike, report: Report) -> None:
    """Write ``report`` as stable, indented JSON (atomically: a crash leaves the old file)."""
    write_text_file(path, report.dumps(), "report", "--report PATH")
