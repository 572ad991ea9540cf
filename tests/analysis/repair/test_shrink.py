"""A verified transplant that screening could not minimise is shrunk with real runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fix import write_project

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.candidates.shrink import MAX_CHECKS, shrunk, worth_shrinking
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.write.patches import insertion
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

# A logging front end that keys its format by the file that calls it (as wrappers that
# name their logger after the calling module do): code run anywhere but in the test's
# own body changes another key, so screening in the call phase cannot judge a cleaner.
FILES = {
    "pytest.ini": "[pytest]\n",
    "textlog/__init__.py": '''
        """Per-module message formats."""
        import inspect
        import sys

        PLAIN = "%(message)s"
        _FORMATS = {}


        def _module():
            caller = sys._getframe(2)
            return inspect.getmodulename(caller.f_code.co_filename) or "textlog"


        def set_format(fmt):
            _FORMATS[_module()] = fmt


        def reset_format():
            _FORMATS.pop(_module(), None)


        def render(message):
            return _FORMATS.get(_module(), PLAIN) % {"message": message}
        ''',
    "tests/test_textlog.py": """
        import textlog


        def test_bracketed():
            textlog.set_format("[%(message)s]")
            assert textlog.render("x") == "[x]"


        def test_plain():
            assert textlog.render("hi") == "hi"


        def test_reset_format():
            textlog.set_format("<%(message)s>")
            shown = textlog.render("x")
            textlog.reset_format()
            plain = textlog.render("x")
            lines = [shown, plain]
            assert lines == ["<x>", "x"]
        """,
}
T = "tests/test_textlog.py::"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("shrink") / "proj", FILES)


def test_a_cleaner_screening_cannot_judge_is_shrunk_on_real_runs(engine: Engine) -> None:
    finding = ODFinding(
        T + "test_plain", "victim", polluters=[T + "test_bracketed"],
        cleaners={T + "test_bracketed": [T + "test_reset_format"]},
    )  # fmt: skip
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == ("textlog.reset_format()",)
    assert result.fix.description == (
        f"1 of the 5 statements of cleaner {T}test_reset_format (minimised by delta "
        "debugging on real runs)"
    )
    assert result.fix.verification.ok


def cleaner(statements: list[str], fixtures: list[str], description: str) -> Candidate:
    return Candidate("cleaner", description, [insertion(T + "test_plain", statements, fixtures)])


def test_only_unminimised_cleaners_of_several_statements_are_shrunk() -> None:
    name = f"cleaner {T}test_reset_format"
    two = ["textlog.reset_format()", "x = 1"]
    assert worth_shrinking(cleaner(two, [], f"the statements of {name}"))
    assert worth_shrinking(cleaner(two, [], f"the 2 statements of {name}"))
    assert not worth_shrinking(cleaner(two, [], f"1 of the 2 statements of {name} (minimised)"))
    assert not worth_shrinking(cleaner(two[:1], [], f"the statement of {name}"))
    assert not worth_shrinking(cleaner(two, [], f"the statements of state-setter {T}x"))


def test_shrinking_keeps_the_imports_and_fixtures_it_still_uses_and_stops_in_time() -> None:
    cand = cleaner(
        ["import json", "import os", "out, err = capsys.readouterr()", "os.environ.pop('A', None)"],
        ["capsys"],
        f"the statements of cleaner {T}test_reset_format",
    )  # fmt: skip
    asked: list[tuple[str, ...]] = []

    def works(smaller: Candidate) -> bool:
        asked.append(smaller.insertions[0].statements)
        return "os.environ.pop('A', None)" in smaller.insertions[0].statements

    got = shrunk(cand, works)
    assert got is not None
    assert got.insertions[0].statements == ("import os", "os.environ.pop('A', None)")
    assert got.insertions[0].fixtures == ()
    assert got.description.startswith("1 of the 2 statements of cleaner ")
    many = cleaner([f"x{i} = {i}" for i in range(40)], [], f"the statements of cleaner {T}t")
    calls: list[int] = []
    assert (
        shrunk(many, lambda c: calls.append(1) is None and len(c.insertions[0].statements) > 30)
        is None
    )
    assert len(calls) == MAX_CHECKS
