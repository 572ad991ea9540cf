"""A victim whose polluters were not all found (the budget ended their search): its fix
goes where every polluter's state arrives, the victim, not into the one polluter known."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import plain_outcomes, repaired

from orderdep.analysis.budget import UNFINISHED_KEY
from orderdep.analysis.repair.candidates.candidates import Candidate, root_cause_rank
from orderdep.core.report import ODFinding

TESTS = """
    import os


    def test_manifest():
        assert os.environ.get("GPU", "0") == "0"


    def test_gpu_true():
        os.environ["GPU"] = "1"


    def test_gpu_false():
        os.environ["GPU"] = "2"
"""
M = "tests/test_gpu.py::"
VICTIM, KNOWN, UNKNOWN = M + "test_manifest", M + "test_gpu_true", M + "test_gpu_false"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_gpu.py").write_text(textwrap.dedent(TESTS).lstrip())
    return root


@pytest.mark.parametrize("searched", ["whole", "partly"])
def test_an_unfinished_polluter_search_puts_the_fix_in_the_victim(
    tmp_path: Path, searched: str
) -> None:
    root = _project(tmp_path / "p")
    finding = ODFinding(VICTIM, "victim", polluters=[KNOWN])
    if searched == "partly":
        finding.extras[UNFINISHED_KEY] = {"polluters": "partly searched (budget)"}
    orders = [[KNOWN, VICTIM], [VICTIM, KNOWN]]
    before = (root / "tests" / "test_gpu.py").read_text()
    files = repaired(root, finding, orders, tmp_path / "w")
    new = files.get("tests/test_gpu.py", before)

    def victim_part(text: str) -> str:
        return text.split("def test_manifest")[1].split("def test_gpu_true")[0]

    # the victim itself, or an autouse fixture around every test of its directory
    changed_victim = victim_part(new) != victim_part(before) or "tests/conftest.py" in files
    after_unknown = plain_outcomes(root, [[UNKNOWN, VICTIM]], tmp_path / "w2")[0]
    if searched == "partly":
        assert changed_victim, files
        assert after_unknown[VICTIM] == "passed"
        # one line for the variable the victim needs unset, not a set-then-delete pair
        text = "".join(files.values())
        assert "delenv('GPU', raising=False)" in text and "setenv" not in text, files
    else:  # every polluter known: the one that leaves the state cleans up after itself
        assert not changed_victim, files
        assert after_unknown[VICTIM] == "failed"


def test_a_partial_polluter_fix_ranks_after_a_change_to_the_victim() -> None:
    polluter = Candidate("polluter", "undo $GPU", [])
    assert root_cause_rank(polluter) == 0
    assert root_cause_rank(Candidate("polluter", "undo $GPU", [], partial=True)) == 3
    assert root_cause_rank(Candidate("restore", "reset $GPU", [])) == 2
