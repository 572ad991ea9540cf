"""Fixtures read from the source: definitions, resolution, closures, narrowing candidates."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.fixture_candidates import (
    narrow_candidates,
    setup_function_candidates,
)
from orderdep.analysis.repair.candidates.fixture_defs import FixtureIndex, parse_fixtures
from orderdep.core.report import ODFinding

CONFTEST = """
import pytest


@pytest.fixture(scope="session")
def catalog(tmp_path_factory):
    return {}


@pytest.fixture(scope="class")
def on_class(request, catalog):
    request.cls.catalog = catalog


@pytest.fixture(name="db", scope="module")
def _db():
    yield {}


@pytest.fixture(autouse=True)
def clean():
    yield
"""

TESTS = """
import unittest

import pytest


@pytest.fixture
def catalog():
    return {"local": 1}


@pytest.mark.usefixtures("on_class")
class TestSale(unittest.TestCase):
    def test_sale(self):
        self.catalog["tea"] = 1


@pytest.mark.usefixtures("on_class")
class TestPrices(unittest.TestCase):
    def test_price(self):
        assert not self.catalog
"""


def test_parse_fixtures_reads_scope_name_autouse_and_teardown() -> None:
    defs = parse_fixtures(CONFTEST, "tests/conftest.py")
    assert sorted(defs) == ["catalog", "clean", "db", "on_class"]
    assert defs["catalog"].scope == "session" and defs["catalog"].params == ("tmp_path_factory",)
    assert defs["db"].name == "_db" and defs["db"].generator and defs["db"].scope == "module"
    assert defs["clean"].autouse and defs["clean"].scope == "function"
    assert defs["on_class"].node_id == "tests/conftest.py::on_class"


def test_resolution_prefers_the_closest_definition(tmp_path: Path) -> None:
    write_files(tmp_path, {"tests/conftest.py": CONFTEST, "tests/test_x.py": TESTS})
    index = FixtureIndex(tmp_path)
    test = "tests/test_x.py::TestSale::test_sale"
    assert index.resolve(test, "catalog") is not None
    assert index.resolve(test, "catalog").file == "tests/test_x.py"  # type: ignore[union-attr]
    assert index.resolve(test, "monkeypatch") is None
    # pytest resolves what a conftest fixture requests from where the test is: the
    # module's catalog overrides the conftest's for on_class too
    names = [(d.file, d.name) for d in index.closure(test, ["on_class"])]
    assert names == [
        ("tests/conftest.py", "on_class"),
        ("tests/conftest.py", "clean"),
        ("tests/test_x.py", "catalog"),
    ]


def test_narrowing_a_shared_session_fixture_narrows_its_wide_requesters(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {"tests/conftest.py": CONFTEST, "tests/test_x.py": TESTS.replace("@pytest.fixture\n"
         "def catalog():\n    return {\"local\": 1}\n", "")},
    )  # fmt: skip
    finding = ODFinding(
        "tests/test_x.py::TestPrices::test_price",
        "victim",
        polluters=["tests/test_x.py::TestSale::test_sale"],
    )
    cands = narrow_candidates(tmp_path, finding)
    assert [c.description for c in cands] == [
        "narrows the scope of fixture on_class",
        "narrows the scope of fixture catalog, on_class",
    ]
    edits = [(i.test, i.edit) for i in cands[1].insertions]
    assert edits == [
        ("tests/conftest.py::catalog", "narrow"),
        ("tests/conftest.py::on_class", "narrow"),
    ]


XUNIT = """
from .context import setup_module{extra}


def test_change():
    pass


def test_read():
    pass
"""


@pytest.mark.parametrize(("extra", "offered"), [("", True), (", setup_function", False)])
def test_setup_module_runs_before_every_test_unless_setup_function_is_imported(
    tmp_path: Path, extra: str, offered: bool
) -> None:
    write_files(tmp_path, {"tests/test_x.py": XUNIT.format(extra=extra)})
    finding = ODFinding(
        "tests/test_x.py::test_read", "victim", polluters=["tests/test_x.py::test_change"]
    )
    cands = setup_function_candidates(tmp_path, finding)
    assert bool(cands) == offered
    if offered:
        (ins,) = cands[0].insertions
        assert (ins.test, ins.statements, ins.edit) == (
            "tests/test_x.py::setup_function",
            ("setup_module()",),
            "setup_function",
        )
    other = ODFinding("tests/test_x.py::test_read", "victim", polluters=["tests/test_y.py::t"])
    assert setup_function_candidates(tmp_path, other) == []  # another module: set up apart


IN_CLASS = """
import pytest


class TestSessions:
    @pytest.fixture(autouse=True, scope="class")
    def _sessions(self, request):
        request.cls.sessions = {}

    def test_login(self):
        self.sessions["s1"] = "ann"

    def test_anonymous(self):
        assert "s1" not in self.sessions
"""


def test_a_fixture_defined_in_the_class_is_addressed_through_it(tmp_path: Path) -> None:
    write_files(tmp_path, {"tests/test_s.py": IN_CLASS})
    index = FixtureIndex(tmp_path)
    test = "tests/test_s.py::TestSessions::test_anonymous"
    # autouse in the class: part of the closure without being requested
    (fixture,) = index.closure(test, [])
    assert fixture.classes == ("TestSessions",)
    assert fixture.node_id == "tests/test_s.py::TestSessions::_sessions"
    finding = ODFinding(test, "victim", polluters=["tests/test_s.py::TestSessions::test_login"])
    (cand,) = narrow_candidates(tmp_path, finding)
    assert [(i.test, i.edit) for i in cand.insertions] == [
        ("tests/test_s.py::TestSessions::_sessions", "narrow")
    ]
