"""The decimal context as shared state: precision set by one test changes the results of
later ones; the debugger names ``decimal`` and the patches set or put back the settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.conftest import debug_first_polluter, verified_fix
from tests.engine.conftest import write_files

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/calc.py": """
        import decimal


        def output_mode():
            decimal.getcontext().prec = 16


        def third():
            return str(decimal.Decimal(1) / decimal.Decimal(3))
        """,
    "tests/test_calc.py": """
        from app import calc


        def test_output_mode():
            calc.output_mode()


        def test_third_at_full_precision():
            assert calc.third() == "0." + "3" * 28


        def test_third_for_display():
            assert calc.third() == "0." + "3" * 16
        """,
}
T = "tests/test_calc.py::"
VICTIM = ODFinding(T + "test_third_at_full_precision", "victim", polluters=[T + "test_output_mode"])
BRITTLE = ODFinding(T + "test_third_for_display", "brittle", state_setters=[T + "test_output_mode"])


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("decimal") / "proj", FILES)


def test_the_debugger_names_the_decimal_context(engine: Engine) -> None:
    result = debug_first_polluter(engine, VICTIM)
    assert [r.name for r in result.culprits] == ["decimal"]


def test_the_polluter_puts_the_precision_back(engine: Engine) -> None:
    # on the victim's orders only: in the whole suite the brittle needs the leak
    repairer = Repairer(engine.config, engine, strategy="polluter", full_suite=False)
    result = repairer.repair(VICTIM)
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert ins.test == VICTIM.polluters[0]
    stmt = "monkeypatch.setattr(decimal.getcontext(), 'prec', decimal.getcontext().prec)"
    assert stmt in ins.statements


def test_the_brittle_sets_the_precision_it_needs(engine: Engine) -> None:
    (ins,) = verified_fix(engine, BRITTLE, "restore").insertions
    assert "monkeypatch.setattr(decimal.getcontext(), 'prec', 16)" in ins.statements
