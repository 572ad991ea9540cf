from __future__ import annotations

import decimal
import logging
import os
import sys

import pytest
from state_helpers import Project

from orderdep.analysis.state.roots import StateTracker, diff
from orderdep.analysis.state.values import describe, get, restore
from orderdep.errors import UsageError


def test_restore_puts_python_roots_back_in_place(project: Project) -> None:
    state = project.module("state")
    n = project.name
    alias = state._ENTRIES
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    saved = {
        name: get(name)
        for name in (f"{n}.state._ENTRIES", f"{n}.state.Meter.hits", f"{n}.state.SETTINGS")
    }
    new = get(f"{n}.state.NEW")
    assert not new.present
    state._ENTRIES.extend([1, 2])
    state.Meter.hits = 7
    state.SETTINGS = {"replaced": True}
    state.NEW = 1
    for name, value in saved.items():
        restore(name, value)
    restore(f"{n}.state.NEW", new)
    assert diff(before, tracker.snapshot()) == []
    assert alias is state._ENTRIES and alias == []  # restored in place, aliases see it


def test_restore_env_files_logging_and_caches(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = project.module("state")
    n = project.name
    monkeypatch.setenv("ORDERDEP_KEEP", "1")
    monkeypatch.delenv("ORDERDEP_GONE", raising=False)
    config = project.config()
    target = project.write("data/f.txt", "orig")
    logger = logging.getLogger(f"{n}.values")
    tracker = StateTracker(config)
    before = tracker.snapshot()
    names = [
        "env:ORDERDEP_KEEP",
        "env:ORDERDEP_GONE",
        "file:data/f.txt",
        "file:data/new.txt",
        f"logging:{n}.values",
        f"cache:{n}.state.square",
        "cwd",
        "sys.path",
        "sys.argv",
        "decimal",
        "random",
        "warnings",
    ]
    saved = {name: get(name, config) for name in names}
    os.environ["ORDERDEP_KEEP"] = "2"
    os.environ["ORDERDEP_GONE"] = "here"
    target.write_text("changed")
    project.write("data/new.txt", "new")
    logger.setLevel(logging.ERROR)
    state.square(5)
    argv = sys.argv
    sys.argv = ["prog", "--changed"]  # rebound, as a test of a command line does
    decimal.getcontext().prec = 5
    for name in names:
        restore(name, saved[name], config)
    assert diff(before, tracker.snapshot()) == []
    assert sys.argv == argv


def test_describe_is_readable(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    state = project.module("state")
    n = project.name
    state._ENTRIES.append("x")
    monkeypatch.setenv("ORDERDEP_D", "v")
    config = project.config()
    project.write("data/f.txt", "12345")
    assert describe(f"{n}.state._ENTRIES") == "list of 1: ['x']"
    assert describe(f"{n}.state.Meter.hits") == "int: 0"
    assert describe("env:ORDERDEP_D") == "'v'"
    assert describe("env:ORDERDEP_UNSET_X") == "<unset>"
    assert describe("file:data/f.txt", config) == "file, 5 bytes"
    assert describe("file:data/none.txt", config) == "<absent>"
    assert describe(f"cache:{n}.state.square").startswith("cache: CacheInfo(")
    assert describe(f"{n}.state.MISSING") == "<unset>"
    assert describe("nosuchmodule.X").startswith("<cannot read: UsageError")


def test_unknown_roots_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="names no imported module"):
        get("nosuchmodule_xyz.X")
    with pytest.raises(UsageError, match="RootsConfig"):
        get("file:a.txt")


def test_a_value_whose_attribute_lookup_raises_a_base_exception_is_still_captured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A package whose module ``__getattr__`` raises its own ``BaseException`` subclass for
    any unknown name (``__deepcopy__`` included): the capture copies what it can and goes
    on, it does not take the test process down."""
    import types

    from orderdep.analysis.state import values

    class NotFound(BaseException):
        pass

    def missing(name: str) -> object:
        raise NotFound(name)

    plugin = types.ModuleType("odtest_nodes")
    plugin.__getattr__ = missing  # type: ignore[method-assign]
    holder = types.ModuleType("odtest_holder")
    holder.NODES = plugin  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "odtest_holder", holder)
    monkeypatch.setitem(sys.modules, "odtest_nodes", plugin)
    got = values.get("odtest_holder.NODES")
    assert got.present and got.value is plugin
    with pytest.raises(KeyboardInterrupt):  # what stops a run still does

        def interrupted(name: str) -> object:
            raise KeyboardInterrupt

        plugin.__getattr__ = interrupted  # type: ignore[method-assign]
        values.get("odtest_holder.NODES")


def test_a_numpy_array_is_put_back_in_place() -> None:
    np = pytest.importorskip("numpy")
    from orderdep.analysis.state.values import put_in_place

    grid = np.zeros((4, 3))
    saved = grid.copy()
    grid[1, 1] = 5.0
    assert put_in_place(grid, saved.copy()) and grid.sum() == 0.0
    assert not put_in_place(grid, np.zeros((2, 3)))  # another shape: not in place
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    assert not put_in_place(frozen, np.ones(3))
