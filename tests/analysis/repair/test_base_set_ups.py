"""A subclass whose ``setUpClass`` overrides its base class's without calling it: its tests,
its own and those it inherits, error alone and pass once a test of the base class ran
the base's set-up (which binds a class attribute the subclass reads through the base).
The fix calls the base's set-up first thing in the override; an inherited test is read
from the base class that defines it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tests.analysis.repair.conftest import verified_fix
from tests.engine.conftest import write_files

from orderdep.analysis.repair import Repairer
from orderdep.analysis.repair.candidates.base_set_ups import base_set_up_candidates, calls_base
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine
from orderdep.shells.cli import main

FILES = {
    "pytest.ini": "[pytest]\n",
    "test_impl.py": """
        import unittest


        class ImplTest(unittest.TestCase):
            impl = dict

            @classmethod
            def setUpClass(cls):
                cls.klass = cls.impl
                super().setUpClass()

            def test_make(self):
                self.assertEqual(self.klass(a=1)["a"], 1)


        class SubclassTest(ImplTest):
            @classmethod
            def setUpClass(cls):
                class Mine(cls.klass):
                    pass

                cls.parent = cls.klass
                cls.klass = Mine

            def test_own(self):
                self.assertTrue(issubclass(self.klass, self.parent))
        """,
}
SETTER = "test_impl.py::ImplTest::test_make"
OWN = "test_impl.py::SubclassTest::test_own"
INHERITED = "test_impl.py::SubclassTest::test_make"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("base_set_up") / "proj", FILES)


def plain(project: Path, *order: str) -> int:
    args = ["-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *order]
    return subprocess.run([sys.executable, *args], cwd=project, capture_output=True).returncode


def test_the_subclass_tests_are_brittles(project: Path) -> None:
    for test in (OWN, INHERITED):
        assert plain(project, test) == 1
        assert plain(project, SETTER, test) == 0


def test_the_candidate_calls_the_base_set_up_first(project: Path) -> None:
    (cand,) = base_set_up_candidates(project, ODFinding(OWN, "brittle", state_setters=[SETTER]))
    (ins,) = cand.insertions
    assert ins.method == "setUpClass" and ins.statements == ("super().setUpClass()",)
    assert cand.at_set_up and "ImplTest.setUpClass" in cand.description
    # the base class's own tests: nothing overridden
    assert base_set_up_candidates(project, ODFinding(SETTER, "brittle")) == []


def test_a_set_up_that_calls_the_base_is_left_alone() -> None:
    for body in ("super().setUp()", "Base.setUp(self)", "x = 1\n    super().setUp()"):
        fn = ast.parse(f"def setUp(self):\n    {body}\n").body[0]
        assert isinstance(fn, ast.FunctionDef)
        assert calls_base(fn, "setUp")
    fn = ast.parse("def setUp(self):\n    super().tearDown()\n").body[0]
    assert isinstance(fn, ast.FunctionDef) and not calls_base(fn, "setUp")


@pytest.mark.parametrize("test", [OWN, INHERITED], ids=["own", "inherited"])
def test_the_verified_fix_is_the_call(engine: Engine, test: str) -> None:
    fix = verified_fix(engine, ODFinding(test, "brittle", state_setters=[SETTER]))
    (ins,) = fix.insertions
    assert ins.method == "setUpClass" and "super().setUpClass()" in ins.statements
    assert ins.comment and "overrides it" in ins.comment


def test_it_is_verified_before_any_debugging(engine: Engine) -> None:
    result = Repairer(engine.config, engine).repair(
        ODFinding(OWN, "brittle", state_setters=[SETTER])
    )
    assert result.fix is not None and result.debug is None
    assert result.candidates == 1 and result.verified == 1


def test_fix_applies_it_and_it_holds_under_plain_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_files(tmp_path / "proj", FILES)
    args = ["fix", str(project), "--test", INHERITED, "--polluter", SETTER, "--apply"]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "super().setUpClass()" in (project / "test_impl.py").read_text()
    assert plain(project, INHERITED) == 0 and plain(project, OWN) == 0
    assert plain(project) == 0
