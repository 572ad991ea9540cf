"""The command line as shared state: a test that rebinds ``sys.argv`` fails a later test
whose code parses it; the debugger names ``sys.argv`` and the patch puts it back."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.conftest import debug_first_polluter
from tests.analysis.repair.corpus_helpers import plain_outcomes, repaired_brittle
from tests.engine.conftest import write_files

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/cli.py": """
        import argparse


        def options():
            parser = argparse.ArgumentParser(add_help=False)
            parser.add_argument("--verbose", action="store_true")
            return parser.parse_known_args()[0]
        """,
    "tests/test_cli.py": """
        import sys

        from app import cli


        def test_verbose_flag():
            sys.argv = ["prog", "--verbose"]
            assert cli.options().verbose


        def test_quiet_by_default():
            assert not cli.options().verbose
        """,
}
T = "tests/test_cli.py::"
FINDING = ODFinding(T + "test_quiet_by_default", "victim", polluters=[T + "test_verbose_flag"])


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("argv") / "proj", FILES)


def test_the_debugger_names_the_command_line(engine: Engine) -> None:
    result = debug_first_polluter(engine, FINDING)
    assert [r.name for r in result.culprits] == ["sys.argv"]


def test_the_polluter_puts_the_command_line_back(engine: Engine) -> None:
    result = Repairer(engine.config, engine, strategy="polluter").repair(FINDING)
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert ins.test == T + "test_verbose_flag"
    assert "monkeypatch.setattr(sys, 'argv', list(sys.argv))" in ins.statements


BRITTLE_FILES = {
    "pytest.ini": "[pytest]\n",
    "tool.py": """
        import argparse
        import sys


        class Ladder:
            def __init__(self, argv=None):
                if argv:
                    sys.argv = [sys.argv[0]] + argv
                parser = argparse.ArgumentParser()
                parser.add_argument("--dry-run", action="store_true")
                parser.add_argument("dev")
                self.options = parser.parse_args()
        """,
    "tests/test_ladder.py": """
        from unittest import TestCase

        from tool import Ladder


        class LadderTests(TestCase):
            def setUp(self):
                self.ladder = Ladder(argv=["--dry-run", "eth0"])

            def test_dev(self):
                self.assertEqual(self.ladder.options.dev, "eth0")
        """,
    "tests/test_tune.py": """
        from unittest import TestCase

        from tool import Ladder


        class TuneTests(TestCase):
            def setUp(self):
                self.tune = Ladder()

            def test_all(self):
                self.assertTrue(self.tune.options.dev)
        """,
}
BRITTLE, SETTER = (
    "tests/test_tune.py::TuneTests::test_all",
    "tests/test_ladder.py::LadderTests::test_dev",
)


def test_a_brittle_gets_the_arguments_its_setter_left(tmp_path: Path) -> None:
    root = write_files(tmp_path / "proj", BRITTLE_FILES)
    before = plain_outcomes(root, [[BRITTLE, SETTER], [SETTER, BRITTLE]], tmp_path / "w0")
    assert [o[BRITTLE] for o in before] == ["failed", "passed"]  # argparse exits: no dev
    new = repaired_brittle(root, BRITTLE, SETTER, tmp_path / "w")
    # the program name stays the run's own, a path of this machine; the arguments are set
    # in a TestCase, as unittest has it: the old value set back at clean-up
    assert (
        "        self.addCleanup(setattr, sys, 'argv', sys.argv)\n"
        "        sys.argv = [sys.argv[0], '--dry-run', 'eth0']\n"
    ) in new["tests/test_tune.py"]
