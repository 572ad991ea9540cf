"""``fix --budget`` with a test whose repair outlasts its share: the next test is
repaired in its own turn, and the first gets another turn with what is left."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import pytest
from clitools import write_files

from orderdep.core.report import ODFinding, Report, save_report
from orderdep.engine import deadline
from orderdep.shells.commands.fix_turns import Turn, Turns

if TYPE_CHECKING:
    from conftest import CliRunner

FILES = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "state.py": "items = []\nflags = {}\n",
    "tests/__init__.py": "",
    "tests/test_items.py": """
        import state

        def test_add():
            state.items.append(1)

        def test_empty():
            assert state.items == []
        """,
    "tests/test_flags.py": """
        import state

        def test_set_flag():
            state.flags["on"] = True

        def test_no_flag():
            assert "on" not in state.flags
        """,
}


def test_a_repair_its_share_stops_gets_a_second_turn_after_the_others(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.shells.commands import repair_cmds

    root = write_files(tmp_path / "p", FILES)
    a, b = "tests/test_flags.py::", "tests/test_items.py::"
    slow = ODFinding(a + "test_no_flag", "victim", polluters=[a + "test_set_flag"])
    quick = ODFinding(b + "test_empty", "victim", polluters=[b + "test_add"])
    tests = [a + "test_set_flag", a + "test_no_flag", b + "test_add", b + "test_empty"]
    save_report(root / ".orderdep" / "report.json", Report(str(root), tests, [slow, quick]))
    real_share, real_repair = Turns.share, repair_cmds.repair_one
    calls: list[str] = []

    def share(self: Turns[Any], turn: Turn[Any], seconds: Optional[float]) -> Optional[float]:
        got = real_share(self, turn, seconds)  # 2 s for the slow one's first turn only
        cut = not turn.second and got is not None and turn.item[0] == slow.test
        return min(got, 2.0) if cut and got is not None else got

    def repair_one(repairer: Any, finding: ODFinding, *args: Any) -> Any:
        calls.append(finding.test)
        if calls == [slow.test]:  # the first attempt outlasts its share
            while True:
                deadline.check()
        return real_repair(repairer, finding, *args)

    monkeypatch.setattr(Turns, "share", share)
    monkeypatch.setattr(repair_cmds, "repair_one", repair_one)
    code, out, err = cli("fix", root, "--apply", "--budget", "300")
    assert calls == [slow.test, quick.test, slow.test], out + err
    assert f"orderdep: {slow.test}: its share of the budget (2 s) ended" in out
    assert code == 0, out + err
    assert "2 patch(es) for 2 OD test(s) hold together" in out, out
    summary = out[out.index("summary:") :].splitlines()
    assert [line.split()[0] for line in summary[2:4]] == [slow.test, quick.test]
