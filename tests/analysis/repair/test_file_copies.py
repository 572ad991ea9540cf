"""Polluters changing a project file through an open handle: each test gets a copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orderdep.analysis.repair.candidates.file_copies import copy_statements, own_copy_candidates
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding

VICTIM, POLLUTER = "tests/test_shell.py::test_ls", "tests/test_shell.py::test_rm_page"


def file_root(path: str, failing: bool = True) -> RootInfo:
    f = ValueView(True, ["atom", "bytes", "b'...'"]) if failing else ValueView(False)
    return RootInfo(f"file:{path}", "file", f, ValueView(False), path=path)


def debug_result(*roots: RootInfo, polluted: tuple[str, ...] = ()) -> DebugResult:
    return DebugResult(
        VICTIM, "victim", [POLLUTER, VICTIM], [VICTIM], differing=list(roots),
        polluted=list(polluted),
    )  # fmt: skip


def test_the_copy_statements_give_the_test_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, private = tmp_path / "project", tmp_path / "private"
    (project / "data").mkdir(parents=True)
    private.mkdir()
    (project / "dummy.nb").write_text("original")
    (project / "data" / "x.db").write_text("table")
    monkeypatch.chdir(project)
    code = "\n".join(copy_statements(["dummy.nb", "data/x.db", "missing.txt"]))
    with monkeypatch.context() as m:
        exec(compile(code, "<fixture>", "exec"), {"monkeypatch": m, "tmp_path": private})
        assert Path.cwd() == private
        Path("dummy.nb").write_text("changed through a handle")
        assert Path("data", "x.db").read_text() == "table"
        assert not Path("missing.txt").exists()
    assert Path.cwd() == project
    assert (project / "dummy.nb").read_text() == "original"
    assert sorted(os.listdir(private)) == ["data", "dummy.nb"]  # no missing.txt made up


def test_candidates_only_when_no_restore_explains_the_failure() -> None:
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    dbg = debug_result(file_root("dummy.nb"), file_root("$TMP/x"), file_root("out/"))
    (cand,) = own_copy_candidates(finding, dbg)
    (ins,) = cand.insertions
    assert ins.test == "tests/test_shell.py::_own_copy_of_dummy_nb"
    assert ins.edit == "autouse" and ins.fixtures == ("monkeypatch", "tmp_path")
    assert "'dummy.nb'" in "\n".join(ins.statements)
    assert "$TMP" not in "\n".join(ins.statements)
    # the same insertion for every victim of the module: one fixture in the patch set
    other = ODFinding("tests/test_shell.py::test_cat", "victim", polluters=[POLLUTER])
    assert own_copy_candidates(other, dbg)[0].insertions == [ins]
    explained = debug_result(file_root("dummy.nb"), polluted=("file:dummy.nb",))
    assert own_copy_candidates(finding, explained) == []
    assert own_copy_candidates(finding, debug_result(file_root("dummy.nb", False))) == []
