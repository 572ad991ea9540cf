"""Everything the HTML report shows, read from a project's ``.orderdep/`` directory.

The report (``orderdep detect``/``classify``/``pradet``) is required; the verified
patches and notes of ``orderdep fix`` and the last ``orderdep evaluate`` are shown when
present. Reproduce commands are made here (a long order is written to an order file,
as ``orderdep detect`` does), so rendering itself writes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from orderdep.core.report import Report, load_report
from orderdep.shells.commands.detect_cmds import reproduce_command
from orderdep.shells.explain import evidence_commands
from orderdep.shells.fixes_file import load_fixes
from orderdep.shells.options import DEFAULT_REPORT, EVALUATION_FILE
from orderdep.shells.patch_files import PATCH_DIR, patch_name

EVALUATION_SCHEMA = "orderdep.evaluation/1"


@dataclass
class ReportInputs:
    """A loaded report and what other commands left next to it."""

    report: Report
    project: Path  # as the user named it: printed commands use it
    report_path: Path
    reproduce: dict[str, str] = field(default_factory=dict)  # OD or NIO test -> command
    evidence: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    patches: dict[str, str] = field(default_factory=dict)  # OD test -> unified diff
    fixes: dict[str, dict[str, Any]] = field(default_factory=dict)  # OD test -> fix notes
    evaluation: Optional[dict[str, Any]] = None


def _params(project: Path) -> dict[str, Any]:
    """The engine options of a default run (what ``orderdep run`` needs repeated: none)."""
    return {
        "project": project,
        "runner": "fork",
        "timeout": None,
        "python": None,
        "rootdir": None,
        "pythonpath": (),
        "pytest_args": (),
    }


def load_evaluation(root: Path) -> Optional[dict[str, Any]]:
    """The last ``orderdep evaluate`` result of the project, if there is a readable one."""
    try:
        data = json.loads((root / EVALUATION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and data.get("schema") == EVALUATION_SCHEMA
    return data if ok and isinstance(data.get("algorithms"), list) else None


def gather(project: Path, report_file: Optional[Path] = None) -> ReportInputs:
    """Load ``project``'s report (or ``report_file``) and the outputs found beside it."""
    root = project.resolve()
    path = report_file if report_file is not None else root / DEFAULT_REPORT
    report = load_report(path, project=str(root))
    inputs = ReportInputs(report=report, project=project, report_path=path)
    params = _params(project)
    seed = report.stats.seed
    beside = path.resolve().parent  # fix writes its patches and notes next to the report
    fixes = load_fixes(beside)
    for f in report.od_tests:
        if f.failing_order:
            note = f"failing order of {f.test} (orderdep detect --seed {seed})"
            inputs.reproduce[f.test] = reproduce_command(params, f.test, f.failing_order, note)
        inputs.evidence[f.test] = evidence_commands(f, project)
        # one patch per test function (parametrized instances share it)
        named = fixes.get(f.test, {}).get("patch")
        patch = (
            beside / named if isinstance(named, str) else beside / PATCH_DIR / patch_name(f.test)
        )
        if patch.is_file():
            inputs.patches[f.test] = patch.read_text(encoding="utf-8", errors="replace")
        if f.test in fixes:
            inputs.fixes[f.test] = fixes[f.test]
    for test in report.nio_tests:
        inputs.reproduce[test] = reproduce_command(params, test, [test, test])
    inputs.evaluation = load_evaluation(root)
    return inputs
