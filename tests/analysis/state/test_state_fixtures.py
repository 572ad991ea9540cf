"""``fixture:`` roots through the engine: fresh values are no write, changes and their
teardown are, and every test reads the fixtures it uses."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from orderdep.analysis.state import fixtures
from orderdep.analysis.state.fingerprint import Fingerprinter
from orderdep.analysis.state.fixtures import FRESH, FixtureRoots, root_name
from orderdep.analysis.state.probe import MODULE
from orderdep.analysis.state.values import describe, get, restore
from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine
from orderdep.errors import UsageError

PROJECT = {
    "tests/conftest.py": """
        import pytest

        @pytest.fixture(scope="session")
        def catalog():
            return ["basic"]
        """,
    "tests/test_fx.py": """
        import pytest

        @pytest.fixture(scope="module")
        def cart():
            return []

        @pytest.fixture
        def plans(catalog):
            return catalog

        def test_catalog_reader(catalog):
            assert catalog == ["basic"]

        def test_catalog_add(catalog):
            catalog.append("x")

        def test_catalog_after(plans):
            assert "x" in plans

        def test_cart_empty(cart):
            assert cart == []

        def test_cart_add(cart):
            cart.append(1)

        def test_last_in_module():
            pass
        """,
    "tests/test_other.py": """
        def test_nothing():
            pass
        """,
}
CATALOG = "fixture:session:tests::catalog"
CART = "fixture:module:tests/test_fx.py::cart"


@pytest.mark.parametrize("narrow", [True, False])
def test_fixture_roots_in_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = tmp_path / "proj"
    for rel, text in PROJECT.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    with Engine(EngineConfig(project=root, runner="fork")) as engine:
        result = engine.run(engine.suite.ids, probe=ProbeSpec(MODULE, {"narrow": narrow}))
    assert not result.failed_tests(), result.results
    data: dict[str, Any] = result.probe
    assert "error" not in data, data.get("error")
    assert data["stats"]["fixture_roots"] == 2  # the project's wide fixtures only
    by_test = {t["test"].rsplit("::", 1)[-1]: t for t in data["tests"]}
    fixture_writes = {
        name: [w for w in t["writes"] if w.startswith("fixture:")] for name, t in by_test.items()
    }
    assert fixture_writes == {
        "test_catalog_reader": [],  # set up fresh: no write
        "test_catalog_add": [CATALOG],
        "test_catalog_after": [],
        "test_cart_empty": [],
        "test_cart_add": [CART],
        "test_last_in_module": [CART],  # leaving the module tore the changed cart down
        "test_nothing": [CATALOG],  # the end of the session tore the catalog down
    }
    assert CATALOG in by_test["test_catalog_after"]["reads"]  # through a fixture using it
    assert CART in by_test["test_cart_empty"]["reads"]
    assert CART not in by_test["test_last_in_module"]["reads"]
    assert data["roots"][CART] == "<not set up>"


class Def:
    """A stand-in for pytest's FixtureDef."""

    def __init__(self, argname: str, scope: str, baseid: str, func: Any) -> None:
        self.argname, self.scope, self.baseid, self.func = argname, scope, baseid, func
        self.cached_result: Any = None


def test_only_wide_project_fixtures_are_roots_and_fresh_values_fingerprint_as_fresh() -> None:
    def project_fixture() -> None: ...

    wide = Def("db", "session", "tests", project_fixture)
    narrow = Def("tmp", "function", "tests", project_fixture)
    foreign = Def("cache", "session", "", len)  # no __code__: not project code
    roots = FixtureRoots([wide, narrow, foreign], lambda filename: True)
    assert list(roots.defs) == [root_name(wide)] == ["fixture:session:tests::db"]
    walker = Fingerprinter()
    out: dict[str, int] = {}
    roots.snapshot(out, walker, None)
    assert out == {"fixture:session:tests::db": FRESH}
    wide.cached_result = ({"rows": []}, None, None)
    roots.set_up(wide)
    roots.snapshot(out, walker, None)
    assert out["fixture:session:tests::db"] == FRESH
    wide.cached_result[0]["rows"].append(1)
    roots.snapshot(out, walker, set())  # not read: the last fingerprint stands
    assert out["fixture:session:tests::db"] == FRESH
    roots.snapshot(out, walker, {"fixture:session:tests::db"})
    assert out["fixture:session:tests::db"] != FRESH
    assert roots.value("fixture:session:tests::db") == (True, {"rows": [1]})
    wide.cached_result = None  # torn down
    roots.snapshot(out, walker, set())
    assert out["fixture:session:tests::db"] == FRESH


def test_get_restore_and_describe_fixture_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    def project_fixture() -> None: ...

    db = Def("db", "module", "tests/test_db.py", project_fixture)
    name = "fixture:module:tests/test_db.py::db"
    monkeypatch.setattr(fixtures, "CURRENT", [None])
    with pytest.raises(UsageError, match="only inside the pytest session"):
        get(name)
    fixtures.CURRENT[0] = FixtureRoots([db], lambda filename: True)
    assert describe(name) == "<not set up>"
    rows: list[int] = []
    db.cached_result = (rows, None, None)
    captured = get(name)
    rows.append(1)
    assert describe(name) == "list of 1: [1]"
    restore(name, captured)
    assert db.cached_result[0] is rows and rows == []
    with pytest.raises(UsageError, match="names no fixture definition"):
        get("fixture:session:tests::other")
