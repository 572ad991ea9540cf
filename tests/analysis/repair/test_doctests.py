"""A doctest victim of another doctest: its docstring is not edited; an autouse fixture in
the nearest conftest.py puts the state back around every test."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import repaired_victim

from orderdep.analysis.repair.candidates.sources import doctest_source

GREET = '''
    import os


    def greeting():
        """The greeting of the environment, or the default.

        >>> greeting()
        'hello'
        """
        return os.environ.get("GREET_WORD", "hello")


    def use_word(word):
        """Make ``word`` the greeting.

        >>> use_word("hi")
        >>> greeting()
        'hi'
        """
        os.environ["GREET_WORD"] = word
'''
VICTIM, POLLUTER = "greet/words.py::greet.words.greeting", "greet/words.py::greet.words.use_word"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.delenv("GREET_WORD", raising=False)


def _project(root: Path) -> Path:
    (root / "greet").mkdir(parents=True)
    (root / "greet/__init__.py").write_text("")
    (root / "greet/words.py").write_text(textwrap.dedent(GREET).lstrip(), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\naddopts = --doctest-modules\n")
    return root


def test_a_doctest_id_reads_as_a_test_with_no_statements(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    source = doctest_source(root, VICTIM)
    assert source is not None and (source.file, source.statements) == ("greet/words.py", [])
    assert doctest_source(root, "greet/test_x.py::test_plain") is None
    assert doctest_source(root, "greet/test_x.py::TestA::test_b") is None


def test_a_doctest_victim_is_repaired_by_a_conftest_fixture(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    new = repaired_victim(root, VICTIM, POLLUTER, tmp_path / "work")
    assert all(path.endswith("conftest.py") for path in new), new  # docstrings stay
