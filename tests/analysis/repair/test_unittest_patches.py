"""Insertions into unittest.TestCase methods: no fixtures, cleanups instead."""

from __future__ import annotations

import textwrap

import pytest

from orderdep.analysis.repair.write.patches import apply_insertion, insertion
from orderdep.analysis.repair.write.unittest_patches import adapt_statements, placements
from orderdep.errors import UsageError

SOURCE = textwrap.dedent(
    """\
    import os
    import unittest

    import pytest

    from httpc import Client


    class TestClient(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            Client.timeout = 1

        def setUp(self):
            self.client = Client("http://x")

        def test_timeout(self):
            self.assertEqual(self.client.effective_timeout, 30)


    class TestPlain:
        def test_env(self):
            assert "X" not in os.environ
    """
)
TEST = "tests/test_client.py::TestClient::test_timeout"


def test_monkeypatch_becomes_a_local_one_undone_by_add_cleanup() -> None:
    stmts = ["monkeypatch.setattr(Client, 'timeout', 30)"]
    out = apply_insertion(SOURCE, insertion(TEST, stmts, ["monkeypatch"], method="setUp"))
    assert (
        "    def setUp(self):\n"
        "        monkeypatch = pytest.MonkeyPatch()\n"
        "        self.addCleanup(monkeypatch.undo)\n"
        '        monkeypatch.setattr(Client, "timeout", 30)\n'
        '        self.client = Client("http://x")\n'
    ) in out
    assert "import pytest\n" not in out.split("class TestClient")[1]  # the file has it


def test_set_up_class_gets_a_class_cleanup_and_methods_keep_their_parameters() -> None:
    stmts = ["monkeypatch.setattr(Client, 'timeout', Client.timeout)"]
    ins = insertion(TEST, stmts, ["monkeypatch"], method="setUpClass")
    out = apply_insertion(SOURCE, ins)
    assert "        cls.addClassCleanup(monkeypatch.undo)\n" in out
    assert "def setUpClass(cls):\n" in out
    assert apply_insertion(out, ins) == out  # applying it twice changes nothing


def test_request_becomes_add_cleanup_and_the_project_root() -> None:
    stmts = ["request.addfinalizer(f)", "os.chdir(request.config.rootpath)"]
    assert adapt_statements(stmts, ["request"], "test_x", "tests/unit/test_a.py") == [
        "import pathlib",
        "self.addCleanup(f)",
        "os.chdir(pathlib.Path(__file__).resolve().parents[2])",
    ]
    with pytest.raises(UsageError, match="cannot take pytest fixture"):
        adapt_statements(["db.reset()"], ["db"], "test_x", "tests/test_a.py")


def test_pytest_classes_keep_fixture_parameters() -> None:
    test = "tests/test_client.py::TestPlain::test_env"
    out = apply_insertion(SOURCE, insertion(test, ["monkeypatch.delenv('X')"], ["monkeypatch"]))
    assert "    def test_env(self, monkeypatch):\n" in out


def test_placements_are_the_method_then_set_up_then_set_up_class() -> None:
    assert placements(SOURCE, ["TestClient"], polluter=True) == [None, "setUp", "setUpClass"]
    assert placements(SOURCE, ["TestClient"], polluter=False) == [None, "setUp"]
    assert placements(SOURCE, ["TestPlain"], polluter=True) == [None]


SCHEMA_TESTS = textwrap.dedent(
    """\
    import unittest

    from kit.nodes import *


    class SchemaTests(unittest.TestCase):
        \"\"\"Ad-hoc schemas parsed with the base class.\"\"\"
        def test_point(self):
            Node.from_schema("point", ("x", "y"))

        def test_net(self):
            Node.from_schema("net", ("name",))
    """
)


def test_polluters_of_one_class_get_a_set_up_that_is_added_once() -> None:
    # a TestCase without setUp: a polluter's clean-up may go into one created for it
    assert placements(SCHEMA_TESTS, ["SchemaTests"], polluter=True) == [None, "setUp"]
    assert placements(SCHEMA_TESTS, ["SchemaTests"], polluter=False) == [None]
    stmts = ["monkeypatch.delattr(Node, '_grammar', raising=False)"]
    out = SCHEMA_TESTS
    for test in ("test_point", "test_net"):  # both polluters: the statements land once
        ins = insertion(f"tests/test_schema.py::SchemaTests::{test}", stmts, ["monkeypatch"])
        out = apply_insertion(out, ins.__class__(**{**ins.__dict__, "method": "setUp"}))
    assert out.count("def setUp(self):") == 1
    assert out.count("monkeypatch.delattr(Node") == 1
    assert '"""Ad-hoc schemas parsed with the base class."""\n\n    def setUp(self):' in out
    assert "        super().setUp()\n" in out
    assert "self.addCleanup(monkeypatch.undo)" in out
    compile(out, "test_schema.py", "exec")


def test_a_name_the_method_already_takes_needs_no_fixture() -> None:
    """A state-setter's statements use its hypothesis argument ``value``; the brittle
    takes a ``value`` of its own, so they go into it as they are."""
    source = textwrap.dedent(
        """\
        import unittest

        from hypothesis import given
        from hypothesis.strategies import integers


        class TestDb(unittest.TestCase):
            @given(value=integers())
            def test_retrieve(self, value):
                assert self.db.select(value)
        """
    )
    test = "tests/test_db.py::TestDb::test_retrieve"
    out = apply_insertion(source, insertion(test, ["self.db.insert(value)"], ["value"]))
    assert (
        "    def test_retrieve(self, value):\n"
        "        self.db.insert(value)\n"
        "        assert self.db.select(value)\n"
    ) in out
    with pytest.raises(UsageError, match="cannot take pytest fixture"):  # one it lacks
        apply_insertion(source, insertion(test, ["self.db.insert(key)"], ["key"]))


def test_one_or_two_plain_setattrs_become_add_cleanup_and_an_assignment() -> None:
    argv = ["import sys", "monkeypatch.setattr(sys, 'argv', [sys.argv[0], '-v'])"]
    assert adapt_statements(argv, ["monkeypatch"], "setUp", "tests/test_a.py") == [
        "import sys",
        "self.addCleanup(setattr, sys, 'argv', sys.argv)",
        "sys.argv = [sys.argv[0], '-v']",
    ]
    # the test's own change undone: the old value set back when it ends, nothing else
    undo = ["monkeypatch.setattr(core, 'handler', core.handler)"]
    assert adapt_statements(undo, ["monkeypatch"], "setUpClass", "tests/test_a.py") == [
        "cls.addClassCleanup(setattr, core, 'handler', core.handler)"
    ]
    # a class (a static method would come back plain), a keyword, three calls: MonkeyPatch
    for stmts in (
        ["monkeypatch.setattr(Client, 'timeout', 3)"],
        ["monkeypatch.setattr(app, 'x', 1, raising=False)"],
        [f"monkeypatch.setattr(app, {name!r}, 1)" for name in ("a", "b", "c")],
        ["monkeypatch.setenv('X', '1')"],
    ):
        out = adapt_statements(stmts, ["monkeypatch"], "test_x", "tests/test_a.py")
        assert "monkeypatch = pytest.MonkeyPatch()" in out, stmts
