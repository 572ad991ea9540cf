"""Settings a library keeps behind a getter and a setter as shared state: numpy's print
options, set by one test (or doctest), change what later tests print; the debugger names
``setting:numpy.printoptions`` and the patches use numpy's own calls to put them back."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.conftest import debug_first_polluter, verified_fix
from tests.engine.conftest import write_files

from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\naddopts = --doctest-modules\n",
    "app/__init__.py": "",
    "app/report.py": '''
        import numpy as np


        def compact():
            """Print arrays with four digits.

            >>> np.set_printoptions(precision=4)
            >>> np.array([1 / 3])
            array([0.3333])
            """
        ''',
    "tests/test_report.py": """
        import numpy as np


        def test_compact_display():
            np.set_printoptions(precision=3)
            assert repr(np.array([1 / 3])) == "array([0.333])"


        def test_full_repr():
            assert repr(np.array([1 / 3])) == "array([0.33333333])"
        """,
}
T = "tests/test_report.py::"
DOCTEST = "app/report.py::app.report.compact"
VICTIM = ODFinding(T + "test_full_repr", "victim", polluters=[T + "test_compact_display"])
AFTER_DOCTEST = ODFinding(T + "test_full_repr", "victim", polluters=[DOCTEST])


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("settings") / "proj", FILES)


def test_the_debugger_names_the_print_options(engine: Engine) -> None:
    result = debug_first_polluter(engine, VICTIM)
    assert [r.name for r in result.culprits] == ["setting:numpy.printoptions"]


def test_the_polluter_puts_the_print_options_back(engine: Engine) -> None:
    (ins,) = verified_fix(engine, VICTIM, "polluter").insertions
    assert ins.test == VICTIM.polluters[0]
    later = "request.addfinalizer(functools.partial(np.set_printoptions, **np.get_printoptions()))"
    assert later in ins.statements


def test_the_victim_sets_the_precision_it_needs(engine: Engine) -> None:
    (ins,) = verified_fix(engine, VICTIM, "restore").insertions
    assert "np.set_printoptions(precision=8)" in ins.statements


def test_a_doctest_polluter_is_fixed_where_the_state_is_shared(engine: Engine) -> None:
    fix = verified_fix(engine, AFTER_DOCTEST)
    (ins,) = fix.insertions
    assert ins.file == "conftest.py"  # the doctest's file cannot take the patch
    assert "# Put the setting numpy.printoptions back after every test" in fix.diff
