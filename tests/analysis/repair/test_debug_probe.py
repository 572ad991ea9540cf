"""The debug probe's value descriptions, literals and restores, in this process."""

from __future__ import annotations

import importlib
import sys
from collections import deque
from pathlib import Path

import pytest

from orderdep.analysis.repair.locate.debug_probe import DebugProbe
from orderdep.analysis.repair.locate.probe_capture import (
    restore_from_fresh_module,
    split_python_root,
)
from orderdep.analysis.repair.locate.probe_values import describe, literal


class Job:
    def __init__(self) -> None:
        self.state = "new"
        self.tags = {"a"}


def test_describe_is_structural_and_bounded() -> None:
    assert describe({"b": 1, "a": [1, (2,)]}) == [
        "dict", "dict",
        [
            ["'a'", ["seq", "list", [["atom", "int", "1"], ["seq", "tuple", [["atom", "int", "2"]]]]]],
            ["'b'", ["atom", "int", "1"]],
        ],
    ]  # fmt: skip
    assert describe(Job()) == [
        "obj", "Job", [["state", ["atom", "str", "'new'"]], ["tags", ["set", "set", ["'a'"]]]]
    ]  # fmt: skip
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert describe(cyclic) == ["seq", "list", [["cycle", "list", ""]]]
    deep: list[object] = [0]
    for _ in range(20):
        deep = [deep]
    assert "cut" in str(describe(deep))
    assert describe("x" * 1000)[2].endswith("chars, crc " + describe("x" * 1000)[2].split()[-1])
    assert describe(len)[0] == "ref"


def test_describe_reads_around_an_attribute_that_raises() -> None:
    """A framework's application object holds a proxy that needs a context (Flask's
    ``g``): reading it raises, and the rest of the object is still described."""

    class Proxy:
        def __getattribute__(self, name: str) -> object:
            raise RuntimeError("Working outside of application context.")

    class App:
        def __init__(self) -> None:
            self.config = {"PAGE_TITLE": "Puppetboard"}
            self.g = Proxy()

    desc = describe(App())
    assert desc[0] == "obj" and desc[1].endswith("App")
    attrs = dict(desc[2])
    assert attrs["config"] == ["dict", "dict", [["'PAGE_TITLE'", ["atom", "str", "'Puppetboard'"]]]]
    assert attrs["g"][0] == "atom" and attrs["g"][2] == "<not readable: RuntimeError>"


def test_literal_only_for_values_that_evaluate_back() -> None:
    assert literal({"a": [1, 2.5, None, (True,)]}) == "{'a': [1, 2.5, None, (True,)]}"
    assert literal(set()) == "set()"
    assert literal(deque([1])) is None
    assert literal(Job()) is None
    assert literal(float("nan")) is None  # nan != nan


def test_split_python_root_finds_the_module_prefix() -> None:
    modules = frozenset({"app", "app.meter"})
    assert split_python_root("app.meter.Meter.hits", modules) == ("app.meter", ["Meter", "hits"])
    assert split_python_root("cache:app.f", modules) == ("app", ["f"])
    assert split_python_root("other.x", modules) is None


def test_restore_from_a_fresh_execution_of_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "od_fresh_mod.py").write_text("ITEMS = []\nLEVEL = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("od_fresh_mod")
    monkeypatch.setitem(sys.modules, "od_fresh_mod", mod)
    items = mod.ITEMS
    items.append("x")
    mod.LEVEL = 5
    restore_from_fresh_module("od_fresh_mod.ITEMS")
    restore_from_fresh_module("od_fresh_mod.LEVEL")
    assert mod.ITEMS is items and items == []  # in place: aliases see the restore
    assert mod.LEVEL == 1
    with pytest.raises(LookupError):
        restore_from_fresh_module("no_such_module_here.X")


def test_exec_mode_reports_errors_instead_of_raising(tmp_path: Path) -> None:
    probe = DebugProbe({"mode": "exec", "at": 0, "code": "1 / 0"}, str(tmp_path))
    probe.before_test(0, "t.py::t")
    assert "ZeroDivisionError" in probe.result()["exec_error"]
    ok = DebugProbe({"mode": "exec", "at": 1, "code": "x = 1"}, str(tmp_path))
    ok.before_test(0, "t.py::t")
    assert "exec_error" not in ok.result()  # not its position yet
    ok.before_test(1, "t.py::t")
    assert ok.result()["exec_error"] == ""
