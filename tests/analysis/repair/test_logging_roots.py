"""A logger's configuration as shared state: ``dictConfig`` disabling the loggers it does
not name, a level one test sets and another needs, handlers added and kept. The debugger
names the logger, and the patches touch only the settings that differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.analysis.repair.conftest import debug_first_polluter
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.logging_statements import (
    logging_changes,
    logging_guards,
    logging_restores,
)
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pytest.ini": "[pytest]\n",
    "shop/__init__.py": """
        import logging

        log = logging.getLogger("shop")


        def buy(item):
            log.warning("bought %s", item)
            log.debug("stock checked for %s", item)
            return item
        """,
    "tests/test_shop.py": """
        import logging
        import logging.config

        import shop


        def test_quiet_setup():
            logging.config.dictConfig({"version": 1, "root": {"level": "ERROR"}})


        def test_buy_is_logged(caplog):
            with caplog.at_level(logging.WARNING, logger="shop"):
                shop.buy("tea")
            assert "bought tea" in caplog.text


        def test_debug_mode():
            logging.getLogger("shop").setLevel(logging.DEBUG)


        def test_stock_check_is_traced():
            assert logging.getLogger("shop").isEnabledFor(logging.DEBUG)
        """,
}
T = "tests/test_shop.py::"
VICTIM = ODFinding(T + "test_buy_is_logged", "victim", polluters=[T + "test_quiet_setup"])
BRITTLE = ODFinding(
    T + "test_stock_check_is_traced", "brittle", state_setters=[T + "test_debug_mode"]
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("logging") / "proj", FILES)


def test_the_debugger_names_the_disabled_logger(engine: Engine) -> None:
    result = debug_first_polluter(engine, VICTIM)
    assert [r.name for r in result.culprits] == ["logging:shop"]
    assert logging_changes(result.culprits[0]) == {"disabled": False}


def test_the_polluter_keeps_the_logger_enabled_when_it_ends(engine: Engine) -> None:
    repairer = Repairer(engine.config, engine, strategy="polluter", full_suite=False)
    result = repairer.repair(VICTIM)
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert ins.test == VICTIM.polluters[0]
    assert ins.statements == (
        "import logging",
        "shop_logger = logging.getLogger('shop')",
        "monkeypatch.setattr(shop_logger, 'disabled', shop_logger.disabled)",
    )
    assert "undo their change to logger shop" in result.fix.description


def test_the_victim_can_enable_the_logger_for_itself(engine: Engine) -> None:
    result = Repairer(engine.config, engine, strategy="restore", full_suite=False).repair(VICTIM)
    assert result.fix is not None, result.notes
    assert "monkeypatch.setattr(shop_logger, 'disabled', False)" in (
        result.fix.insertions[0].statements
    )


def test_the_brittle_sets_the_level_it_needs(engine: Engine) -> None:
    result = Repairer(engine.config, engine, strategy="restore").repair(BRITTLE)
    assert result.fix is not None, result.notes
    assert "shop_logger.setLevel('DEBUG')" in result.fix.insertions[0].statements


def _root(name: str, failing: dict[str, Any], passing: dict[str, Any]) -> RootInfo:
    return RootInfo(
        name,
        "logging",
        ValueView(True, literal=repr(failing)),
        ValueView(True, literal=repr(passing)),
    )


def test_handlers_and_levels_are_put_back_by_the_test_that_changes_them() -> None:
    before = {"level": 0, "disabled": False, "propagate": True, "handlers": [], "disable": 0}
    after = {**before, "level": 10, "handlers": ["StreamHandler"], "disable": 50}
    (guard,) = logging_guards(_root("logging:root", after, before))
    assert guard == (
        [
            "import logging",
            "import functools",
            "root_logger = logging.getLogger()",
            "monkeypatch.setattr(root_logger, 'handlers', list(root_logger.handlers))",
            "request.addfinalizer(functools.partial(root_logger.setLevel, root_logger.level))",
            "request.addfinalizer(functools.partial(logging.disable, "
            "logging.root.manager.disable))",
        ],
        ["monkeypatch", "request"],
    )
    (restore,) = logging_restores(_root("logging:app.db", after, before))
    assert restore[0][1:] == [
        "app_db_logger = logging.getLogger('app.db')",
        "app_db_logger.setLevel('NOTSET')",
        "monkeypatch.setattr(app_db_logger, 'handlers', [])",
        "logging.disable(0)",
    ]
    assert logging_guards(_root("logging:x", before, before)) == []
