"""``detect`` after a fork check that ended without a verdict: the fork runner searches,
and fresh processes confirm (see ``test_fresh_confirmation`` for what is counted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest

from orderdep.analysis import fork_trust
from orderdep.core.fidelity import FidelityReport
from orderdep.engine.runner import Engine

if TYPE_CHECKING:
    from conftest import CliRunner


def test_an_unchecked_fork_runner_searches_and_fresh_processes_confirm(
    od_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    runners: list[str] = []

    def unfinished(engine: Engine, *args: Any, **kwargs: Any) -> Optional[FidelityReport]:
        assert kwargs.get("confirms_fresh") is True  # detect confirms in fresh processes
        engine.search_unchecked = True  # as a check its share cut before any verdict
        return None

    real_confirm = Engine.confirm_fresh

    def confirm_fresh(engine: Engine) -> str:
        runners.append(engine.runner)
        return real_confirm(engine)

    monkeypatch.setattr(fork_trust, "trust_fork", unfinished)
    monkeypatch.setattr(Engine, "confirm_fresh", confirm_fresh)
    report = od_project / "report.json"
    code, out, err = cli(
        "detect", od_project, "--strategy", "reverse", "--seed", "1", "--report", report
    )
    assert code == 1, out + err  # OD tests found
    data = json.loads(report.read_text())
    assert [f["test"] for f in data["od_tests"]] == ["tests/test_od.py::test_victim"]
    assert data["stats"]["confirmed_fresh"] == "subprocess"
    assert runners == ["fork"]  # the search ran on the fork runner
