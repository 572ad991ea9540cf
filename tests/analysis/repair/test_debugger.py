"""The Debugger (003 §3.1) end to end: it must name the polluted root of each channel."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from orderdep.analysis.repair.locate.debugger import (
    DebugError,
    debug,
    infer_orders,
    orders_for,
    restore_rank,
)
from orderdep.analysis.repair.locate.root_changes import change_lines
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import UsageError

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/registry.py": """
        _ENTRIES = {}
        COUNT = 0
        MODE = None

        def configure(mode):
            global MODE
            MODE = mode

        def register(name):
            global COUNT
            _ENTRIES[name] = True
            COUNT += 1
        """,
    "app/meter.py": """
        class Meter:
            hits = 0

            @classmethod
            def bump(cls):
                cls.hits += 1
        """,
    "app/settings.py": """
        import functools
        import os

        @functools.lru_cache(maxsize=None)
        def mode():
            return os.environ.get("APP_MODE_SETTING", "normal")
        """,
    "tests/test_channels.py": """
        import os
        import pathlib

        from app import registry
        from app.meter import Meter
        from app import settings

        _SEEN = []

        def test_register():
            registry.register("job_7")

        def test_registry_empty():
            assert "job_7" not in registry._ENTRIES

        def test_bump():
            Meter.bump()

        def test_meter_zero():
            assert Meter.hits == 0

        def test_set_env():
            os.environ["APP_DEBUG"] = "1"

        def test_env_unset():
            assert "APP_DEBUG" not in os.environ

        def test_write_file():
            pathlib.Path("state.txt").write_text("dirty")

        def test_no_file():
            assert not pathlib.Path("state.txt").exists()

        def test_cache_fill(monkeypatch):
            monkeypatch.setenv("APP_MODE_SETTING", "fast")
            assert settings.mode() == "fast"

        def test_cache_default():
            assert settings.mode() == "normal"

        def test_seen_add():
            _SEEN.append("x")

        def test_seen_empty():
            assert _SEEN == []

        def test_unrelated():
            assert 1 + 1 == 2

        def test_configure():
            registry.configure("prod")

        def test_fill_both():
            _SEEN.append("y")
            registry._ENTRIES["job_8"] = True

        def test_both_empty():
            assert _SEEN == [] and registry._ENTRIES == {}

        def test_mode_prod():
            assert registry.MODE == "prod"
        """,
}
M = "tests/test_channels.py::"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # its shutdown costs ~1 s per pytest process; these projects do not use it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = write_project(tmp_path_factory.mktemp("dbg") / "proj", FILES)
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(root)) as eng:
        yield eng
    mp.undo()


@pytest.mark.parametrize(
    ("polluter", "victim", "root", "change"),
    [
        ("test_register", "test_registry_empty", "app.registry._ENTRIES", "has extra key 'job_7'"),
        ("test_bump", "test_meter_zero", "app.meter.Meter.hits", "is 1 (passing: 0)"),
        ("test_set_env", "test_env_unset", "env:APP_DEBUG", "is set to '1' (unset in the passing order)"),
        ("test_write_file", "test_no_file", "file:state.txt", "was created (absent in the passing order)"),
        ("test_cache_fill", "test_cache_default", "cache:app.settings.mode", "holds 1 cached result(s) (passing: 0)"),
        ("test_seen_add", "test_seen_empty", "test_channels._SEEN", "has 1 extra item at the end: 'x'"),
    ],
)  # fmt: skip
def test_names_the_polluted_root(
    engine: Engine, polluter: str, victim: str, root: str, change: str
) -> None:
    result = debug(
        engine, M + victim, kind="victim", failing_order=[M + polluter, M + victim],
        passing_order=[M + victim],
    )  # fmt: skip
    assert result.polluted == [root]
    assert result.root(root).changes[0] == change
    assert result.test_module == "test_channels"


def test_differing_roots_that_do_not_matter_are_not_polluted(engine: Engine) -> None:
    # register() also bumps COUNT, which the victim never reads
    result = debug(
        engine, M + "test_registry_empty", kind="victim",
        failing_order=[M + "test_register", M + "test_registry_empty"],
        passing_order=[M + "test_registry_empty"],
    )  # fmt: skip
    names = [r.name for r in result.differing]
    assert "app.registry.COUNT" in names
    assert result.root("app.registry.COUNT").changes == ("is 1 (passing: 0)",)
    assert "app.registry.COUNT" not in result.polluted


def test_brittle_needs_the_state_its_setter_made(engine: Engine) -> None:
    result = debug(
        engine, M + "test_mode_prod", kind="brittle", failing_order=[M + "test_mode_prod"],
        passing_order=[M + "test_configure", M + "test_mode_prod"],
    )  # fmt: skip
    assert result.polluted == ["app.registry.MODE"]
    assert result.root("app.registry.MODE").changes == ("is None (passing: 'prod')",)


def test_roots_needed_together_are_found_by_ddmin(engine: Engine) -> None:
    result = debug(
        engine, M + "test_both_empty", kind="victim",
        failing_order=[M + "test_fill_both", M + "test_both_empty"],
        passing_order=[M + "test_both_empty"],
    )  # fmt: skip
    assert result.polluted == []
    assert result.together == ["app.registry._ENTRIES", "test_channels._SEEN"]
    assert [r.name for r in result.culprits] == result.together


def test_more_roots_than_restores_are_searched_together_then_halved(engine: Engine) -> None:
    # two roots differ (COUNT first by name) and one restore is allowed: restoring both
    # together, then half of them, names the one that matters
    result = debug(
        engine, M + "test_registry_empty", kind="victim",
        failing_order=[M + "test_register", M + "test_registry_empty"],
        passing_order=[M + "test_registry_empty"], max_restores=1,
    )  # fmt: skip
    assert len(result.differing) == 2
    assert result.polluted == ["app.registry._ENTRIES"]


def test_data_is_restored_before_code() -> None:
    def root(name: str, kind: str, type_: str, importable: str | None = None) -> RootInfo:
        view = ValueView(True, "x", None, type_, importable)
        return RootInfo(name, kind, view, view)

    function = root("app.helpers.read", "global", "function", "app.helpers:read")
    klass = root("app.helpers.Reader", "global", "type", "app.helpers:Reader")
    data = root("app.settings.user", "global", "str")
    env = root("env:USER", "env", "str")
    ranked = sorted([function, env, klass, data], key=restore_rank)
    assert [r.name for r in ranked] == [
        "app.settings.user",
        "app.helpers.read",
        "app.helpers.Reader",
        "env:USER",
    ]


def test_a_pair_that_is_not_order_dependent_is_refused(engine: Engine) -> None:
    with pytest.raises(DebugError, match="did not reproduce"):
        debug(
            engine, M + "test_meter_zero", kind="victim",
            failing_order=[M + "test_unrelated", M + "test_meter_zero"],
            passing_order=[M + "test_meter_zero"],
        )  # fmt: skip


def test_infer_orders_from_the_original_order(engine: Engine) -> None:
    kind, failing, passing = infer_orders(engine, M + "test_registry_empty")
    assert kind == "victim"
    assert failing == [M + "test_register", M + "test_registry_empty"]
    assert passing == [M + "test_registry_empty"]
    with pytest.raises(UsageError, match="does not look order-dependent"):
        infer_orders(engine, M + "test_unrelated")


def test_orders_for_a_finding() -> None:
    victim = ODFinding("t", "victim", polluters=["p"], failing_order=["x", "p", "t"])
    assert orders_for(victim) == ("victim", ["p", "t"], ["t"])
    assert orders_for(victim, ["q"]) == ("victim", ["q", "t"], ["t"])
    grouped = ODFinding("t", "victim", polluter_groups=[["a", "b"]])
    assert orders_for(grouped) == ("victim", ["a", "b", "t"], ["t"])
    brittle = ODFinding("t", "brittle", state_setters=["s"])
    assert orders_for(brittle) == ("brittle", ["t"], ["s", "t"])
    with pytest.raises(UsageError, match="not classified"):
        orders_for(ODFinding("t"))
    with pytest.raises(UsageError, match="no polluter known"):
        orders_for(ODFinding("t", "victim"))


def _view(desc: object, literal: str | None = None) -> ValueView:
    return ValueView(True, desc, literal, "x")


def test_change_lines_are_readable() -> None:
    atom = ["atom", "int", "1"]
    f = _view(["dict", "dict", [["'a'", atom], ["'b'", ["atom", "int", "2"]], ["'c'", atom]]])
    p = _view(["dict", "dict", [["'a'", atom], ["'b'", atom], ["'d'", atom]]])
    assert change_lines("global", f, p) == [
        "has extra key 'c'",
        "lacks key 'd'",
        "['b']: is 2 (passing: 1)",
    ]
    seq = _view(["seq", "list", [atom]])
    longer = _view(["seq", "list", [atom, ["atom", "str", "'z'"]]])
    assert change_lines("global", seq, longer) == ["lacks its last 1 item: 'z'"]
    s1, s2 = _view(["set", "set", ["1", "2"]]), _view(["set", "set", ["1"]])
    assert change_lines("global", s1, s2) == ["has extra element 2"]
    assert change_lines("env", ValueView(False), _view(["atom", "str", "'v'"], "'v'")) == [
        "is unset (passing: 'v')"
    ]
    obj_f = _view(["obj", "Job", [["state", ["atom", "str", "'done'"]]]])
    obj_p = _view(["obj", "Job", [["state", ["atom", "str", "'new'"]]]])
    assert change_lines("global", obj_f, obj_p) == [".state: is 'done' (passing: 'new')"]
