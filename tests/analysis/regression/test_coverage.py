"""Per-test coverage: function ranges, the data file, and a real run through the engine."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from orderdep.analysis.regression.coverage import (
    NO_COVERAGE,
    CoverageData,
    collect_coverage,
    function_ranges,
    load_coverage,
    load_durations,
    save_coverage,
)
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import EngineError, ReportError


def test_function_ranges_nested_methods_decorators() -> None:
    source = textwrap.dedent(
        """\
        import functools

        @functools.lru_cache
        def cached(x):
            return x

        class Box:
            def put(self, v):
                def inner():
                    return v
                return inner()

            async def later(self):
                return 1

        def broken(
            a,
        ):
            pass
        """
    )
    assert function_ranges(source) == [
        ("cached", 3, 5),
        ("Box.put", 8, 11),
        ("Box.put.<locals>.inner", 9, 10),
        ("Box.later", 13, 14),
        ("broken", 16, 19),
    ]
    assert function_ranges("def (:") == []


def test_round_trip_and_errors(tmp_path: Path) -> None:
    data = CoverageData(
        tests=["t.py::a", "t.py::b"],
        statements={"t.py::a": {"app.py": [1, 2]}, "t.py::b": {}},
        functions={"t.py::a": {"app.py": ["f"]}, "t.py::b": {}},
        durations={"t.py::a": 0.5, "t.py::b": 1.25},
        outcomes={"t.py::a": "passed", "t.py::b": "failed"},
        function_ranges={"app.py": [("f", 1, 3)]},
        project="/p",
    )
    path = tmp_path / ".orderdep" / "coverage.json"
    save_coverage(path, data)
    again = load_coverage(path)
    assert again == data
    assert again.statement_coverage()["t.py::a"] == {("app.py", 1), ("app.py", 2)}
    assert again.function_coverage() == {"t.py::a": {("app.py", "f")}, "t.py::b": frozenset()}
    assert load_durations(path) == {"t.py::a": 0.5, "t.py::b": 1.25}

    with pytest.raises(ReportError, match=r"no coverage data at .*run `orderdep coverage`"):
        load_coverage(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "other/1"}')
    with pytest.raises(ReportError, match=r"is not 'orderdep.coverage/1' data .*'other/1'"):
        load_coverage(bad)
    bad.write_text('{"schema": "orderdep.coverage/1", "tests": []}')
    with pytest.raises(ReportError, match="malformed"):
        load_coverage(bad)


def test_load_durations_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"a": 1, "b": 0.5}))
    assert load_durations(path) == {"a": 1.0, "b": 0.5}
    path.write_text(json.dumps({"a": -1}))
    with pytest.raises(ReportError, match=r"duration of 'a' must be a non-negative number.*-1"):
        load_durations(path)
    path.write_text("[1, 2]")
    with pytest.raises(ReportError, match=r"must hold a JSON object"):
        load_durations(path)


PROJECT = {
    "app/__init__.py": "",
    "app/core.py": """\
        STATE = {}


        def setter():
            STATE["x"] = 1


        def reader():
            return STATE.get("x")


        class Box:
            def put(self, v):
                STATE["box"] = v
                return v
        """,
    "tests/test_a.py": """\
        import pytest

        from app import core


        @pytest.fixture
        def box():
            b = core.Box()
            yield b
            core.STATE.pop("box", None)


        def test_set():
            core.setter()


        def test_read():
            assert core.reader() == 1


        def test_box(box):
            assert box.put(3) == 3
        """,
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_collect_coverage_credits_fixture_setup_and_teardown(tmp_path: Path) -> None:
    _write(tmp_path, PROJECT)
    with Engine(EngineConfig(tmp_path, runner="fork")) as engine:
        data = collect_coverage(engine, tmp_path)
    box = "tests/test_a.py::test_box"
    assert data.tests == ["tests/test_a.py::test_set", "tests/test_a.py::test_read", box]
    assert data.outcomes == dict.fromkeys(data.tests, "passed")
    assert data.statements["tests/test_a.py::test_set"] == {
        "app/core.py": [5],
        "tests/test_a.py": [14],
    }
    # Fixture setup (8, 9), teardown (10) and the test body (22) all belong to test_box.
    assert data.statements[box]["tests/test_a.py"] == [8, 9, 10, 22]
    assert data.functions[box] == {
        "app/core.py": ["Box.put"],
        "tests/test_a.py": ["box", "test_box"],
    }
    assert all(d > 0 for d in data.durations.values())
    assert ("setter", 4, 5) in data.function_ranges["app/core.py"]
    # Module-level code ran at collection, before any test: credited to none.
    assert not any(1 in per.get("app/core.py", []) for per in data.statements.values())


def test_coverage_missing_where_the_tests_run_is_a_clear_error(tmp_path: Path) -> None:
    # the project's Python cannot import coverage.py (it is an optional extra now)
    _write(tmp_path, {**PROJECT, "conftest.py": "import sys\n\nsys.modules['coverage'] = None\n"})
    with Engine(EngineConfig(tmp_path, runner="fork")) as engine, pytest.raises(EngineError) as err:
        collect_coverage(engine, tmp_path)
    message = str(err.value)
    assert message.startswith(NO_COVERAGE) and "Traceback" not in message
    assert "-m pip install 'coverage>=7.3'" in message
