"""Files tests share in a working directory a session fixture moved them to (a directory
of pytest's ``basetemp``): found as ``file:$CWD/`` roots and undone where they are made."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.repair.conftest import EngineFor
from tests.analysis.repair.corpus_helpers import plain_outcomes

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import apply_fix
from orderdep.core.report import ODFinding

T = "tests/test_report.py::"
VICTIM, POLLUTER = T + "test_without_summary", T + "test_summary"


def test_a_file_left_in_a_session_working_directory_is_removed_by_its_writer(
    engine_for: EngineFor, tmp_path: Path
) -> None:
    engine = engine_for("cwd_session_files")
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    # (the default strategies narrow the session fixture; a brittle may need it shared)
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.debug is not None
    assert "file:$CWD/results_summary.tsv" in [r.name for r in result.debug.culprits]
    assert result.fix is not None and result.fix.strategy == "polluter", result.notes
    text = "\n".join(result.fix.insertions[0].statements)
    assert "pathlib.Path('results_summary.tsv').absolute()" in text, text
    assert "lambda path=pathlib.Path('results_summary.tsv').absolute():" in text, text
    root = engine.config.project
    apply_fix(root, result.fix)
    orders = [[POLLUTER, VICTIM], [VICTIM, POLLUTER], [T + "test_table", POLLUTER, VICTIM]]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


def test_the_victim_can_remove_it_at_its_start_instead(engine_for: EngineFor) -> None:
    engine = engine_for("cwd_session_files")
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    result = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == (
        "import pathlib",
        "pathlib.Path('results_summary.tsv').absolute().unlink(missing_ok=True)",
    )
