"""A hand-written project for ``orderdep why``: a cache singleton, a plugin registry filled
by a unittest class, env config, a database state set up in steps, and a flaky test.

Collection order passes; shuffled orders break it in four ways:

* ``CACHE_EMPTY`` is a victim of ``LOGIN`` (one polluter);
* ``NO_CONFLICTS`` is a victim of ``CSV`` and ``XLSX`` together (a polluter group);
* ``MODE_IS_PROD`` is a brittle that needs ``SET_MODE`` (one state-setter);
* ``QUERY`` is a brittle that needs ``OPEN`` then ``MIGRATE`` (a state-setter set);
* ``FLAKY`` may fail, whatever the order (ND), but so rarely (one run in a billion) that
  the tests using this project can count on its passing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from clitools import write_files

DB, ENV, FLAKY_MOD = "tests/test_db.py", "tests/test_env.py", "tests/test_flaky.py"
PLUGINS, USERS = "tests/test_plugins.py", "tests/test_users.py"
OPEN, MIGRATE = f"{DB}::TestDb::test_1_open", f"{DB}::TestDb::test_2_migrate"
QUERY = f"{DB}::test_query"
SET_MODE, MODE_IS_PROD = f"{ENV}::test_set_mode", f"{ENV}::test_mode_is_prod"
FLAKY = f"{FLAKY_MOD}::test_flaky"
NO_CONFLICTS = f"{PLUGINS}::test_no_conflicts"
CSV, XLSX = f"{PLUGINS}::TestPlugins::test_csv", f"{PLUGINS}::TestPlugins::test_xlsx"
CACHE_EMPTY, LOGIN = f"{USERS}::test_cache_starts_empty", f"{USERS}::test_login_caches_user"
NAMES = [f"{USERS}::test_names[{n}]" for n in range(3)]

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/settings.py": """
        CACHE = {}


        def remember(key, value):
            CACHE[key] = value
        """,
    "app/plugins.py": """
        _REGISTRY = []


        def register(name):
            _REGISTRY.append(name)


        def conflicts():
            return {"csv", "xlsx"} <= set(_REGISTRY)
        """,
    "app/db.py": """
        STATE = {"open": False, "migrated": False}
        """,
    "tests/conftest.py": """
        import pytest


        @pytest.fixture(scope="session")
        def user_name():
            return "ann"
        """,
    DB: """
        import unittest

        from app import db


        class TestDb(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                cls.state = db.STATE

            def test_1_open(self):
                self.state["open"] = True

            def test_2_migrate(self):
                if self.state["open"]:
                    self.state["migrated"] = True


        def test_query():
            assert db.STATE["migrated"], "run the migrations first"
        """,
    ENV: """
        import os


        def test_set_mode():
            os.environ["SHOP_MODE"] = "prod"


        def test_mode_is_prod():
            assert os.environ.get("SHOP_MODE") == "prod"
        """,
    FLAKY_MOD: """
        import random


        def test_flaky():
            assert random.SystemRandom().random() < 1 - 1e-9
        """,
    PLUGINS: """
        import unittest

        from app import plugins


        def test_no_conflicts():
            assert not plugins.conflicts()


        class TestPlugins(unittest.TestCase):
            def test_csv(self):
                plugins.register("csv")

            def test_xlsx(self):
                plugins.register("xlsx")
        """,
    USERS: """
        import pytest

        from app import settings


        def test_cache_starts_empty():
            assert settings.CACHE == {}


        def test_login_caches_user(user_name):
            settings.remember("user_7", {"name": user_name})


        @pytest.mark.parametrize("n", range(3))
        def test_names(n):
            assert n >= 0
        """,
}

IDS = [OPEN, MIGRATE, QUERY, SET_MODE, MODE_IS_PROD, FLAKY, NO_CONFLICTS, CSV, XLSX]
IDS += [CACHE_EMPTY, LOGIN, *NAMES]


def make_shop(root: Path) -> Path:
    return write_files(root, FILES)


def pytest_run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A real ``python -m pytest`` in ``project`` (the way a user or CI runs it)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=project,
        capture_output=True,
        text=True,
    )
