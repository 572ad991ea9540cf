"""Fixtures that write small pytest projects into ``tmp_path`` and run engines on them.

Every project is plain files; the engine copies it into a private working tree, so the
tests here can look at the original afterwards to prove it was never touched.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from orderdep.core.outcomes import Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

RUNNERS = ("fork", "subprocess")

ProjectWriter = Callable[..., Path]
EngineFactory = Callable[..., Engine]


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> dedented text) under ``root``; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep hypothesis's pytest plugin out of the pytest processes the engine starts.

    None of these projects uses it, and its shutdown alone costs about half a second per
    pytest process (it would double the cost of every subprocess-backend order here).
    """
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


@pytest.fixture
def make_project(tmp_path: Path) -> ProjectWriter:
    """``make_project(files, name="proj")`` writes a project and returns its directory."""

    def make(files: dict[str, str], name: str = "proj") -> Path:
        return write_files(tmp_path / name, files)

    return make


@pytest.fixture
def make_engine() -> Iterator[EngineFactory]:
    """``make_engine(project, **config)`` builds an Engine that is closed after the test."""
    engines: list[Engine] = []

    def make(project: Path, *, store: Any = None, job: str | None = None, **config: Any) -> Engine:
        engine = Engine(EngineConfig(project, **config), store=store, job=job)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture(scope="session")
def files_writer() -> Callable[[Path, dict[str, str]], Path]:
    """:func:`write_files`, for fixtures of wider scopes than ``make_project``."""
    return write_files


@pytest.fixture(params=RUNNERS)
def runner(request: pytest.FixtureRequest) -> str:
    """Each backend in turn."""
    return str(request.param)


# -- a project with planted order dependencies through every leak channel ------------


@dataclass
class Planted:
    """A planted project: which polluter breaks which victim, which setter which brittle."""

    root: Path
    polluters: dict[str, str] = field(default_factory=dict)  # victim -> polluter
    setters: dict[str, str] = field(default_factory=dict)  # brittle -> state-setter
    same_module_only: set[str] = field(default_factory=set)  # victims of module fixtures

    @property
    def victims(self) -> list[str]:
        return list(self.polluters)

    @property
    def brittles(self) -> list[str]:
        return list(self.setters)

    def expected(self, order: Sequence[str]) -> list[Outcome]:
        """The outcome of each position under the planted dependencies alone."""
        out: list[Outcome] = []
        for i, test in enumerate(order):
            before = order[:i]
            if test in self.polluters:
                bad = self._polluted(test, before)
                out.append(Outcome.FAILED if bad else Outcome.PASSED)
            elif test in self.setters:
                ok = self.setters[test] in before
                out.append(Outcome.PASSED if ok else Outcome.FAILED)
            else:
                out.append(Outcome.PASSED)
        return out

    def _polluted(self, victim: str, before: Sequence[str]) -> bool:
        polluter = self.polluters[victim]
        if polluter not in before:
            return False
        if victim not in self.same_module_only:
            return True
        # A module-scoped fixture lives only while the run stays inside its module.
        module = victim.split("::")[0]
        last = max(i for i, t in enumerate(before) if t == polluter)
        return all(t.split("::")[0] == module for t in before[last:])


PLANTED_FILES = {
    "pytest.ini": """
        [pytest]
        testpaths = tests
    """,
    "state.py": """
        items = []
        ready = False


        class Settings:
            debug = False
    """,
    "data.txt": "original\n",
    "keep.txt": "keep\n",
    "sub/README": "a directory to chdir into\n",
    "shadow/shadowmod.py": "VALUE = 1\n",
    "tests/conftest.py": """
        from pathlib import Path

        import pytest

        ROOT = Path(__file__).resolve().parent.parent


        @pytest.fixture(scope="session")
        def registry():
            return {}


        @pytest.fixture
        def root():
            return ROOT
    """,
    "tests/test_polluters.py": """
        import os
        import sys
        import tempfile
        import types
        from pathlib import Path

        import state


        def test_p_global():
            state.items.append("polluted")


        def test_p_classattr():
            state.Settings.debug = True


        def test_p_environ():
            os.environ["OD_PLANTED"] = "1"


        def test_p_cwd(root):
            os.chdir(root / "sub")


        def test_p_syspath(root):
            sys.path.insert(0, str(root / "shadow"))


        def test_p_sysmodules():
            sys.modules["od_planted_mod"] = types.ModuleType("od_planted_mod")


        def test_p_file_new(root):
            (root / "created.lock").write_text("x")


        def test_p_file_changed(root):
            (root / "data.txt").write_text("changed\\n")


        def test_p_file_deleted(root):
            (root / "keep.txt").unlink()


        def test_p_session(registry):
            registry["polluted"] = True


        def test_p_home():
            (Path.home() / ".odrc").write_text("x")


        def test_p_tmp():
            (Path(tempfile.gettempdir()) / "od_planted.tmp").write_text("x")


        def test_p_basetemp(tmp_path_factory):
            (tmp_path_factory.getbasetemp() / "od_planted").write_text("x")
    """,
    "tests/test_victims.py": """
        import os
        import sys
        import tempfile
        from pathlib import Path

        import state


        def test_v_global():
            assert state.items == []


        def test_v_classattr():
            assert state.Settings.debug is False


        def test_v_environ():
            assert "OD_PLANTED" not in os.environ


        def test_v_cwd(root):
            assert Path.cwd().resolve() == root


        def test_v_syspath():
            assert not any(p.endswith("shadow") for p in sys.path)


        def test_v_sysmodules():
            assert "od_planted_mod" not in sys.modules


        def test_v_file_new(root):
            assert not (root / "created.lock").exists()


        def test_v_file_changed(root):
            assert (root / "data.txt").read_text() == "original\\n"


        def test_v_file_deleted(root):
            assert (root / "keep.txt").read_text() == "keep\\n"


        def test_v_session(registry):
            assert registry == {}


        def test_v_home():
            assert not os.path.exists(os.path.expanduser("~/.odrc"))
            assert not (Path.home() / ".odrc").exists()


        def test_v_tmp():
            assert not (Path(tempfile.gettempdir()) / "od_planted.tmp").exists()


        def test_v_basetemp(tmp_path_factory):
            assert not (tmp_path_factory.getbasetemp() / "od_planted").exists()
    """,
    "tests/test_scoped.py": """
        import pytest


        @pytest.fixture(scope="module")
        def cache():
            return []


        def test_p_modfix(cache):
            cache.append("polluted")


        def test_v_modfix(cache):
            assert cache == []


        class TestShared:
            seen = []

            def test_p_shared(self):
                TestShared.seen.append(1)

            def test_v_shared(self):
                assert TestShared.seen == []
    """,
    "tests/test_brittle.py": """
        import os

        import state


        def test_s_env():
            os.environ["OD_READY"] = "1"


        def test_s_file(root):
            (root / "ready.flag").write_text("yes")


        def test_s_global():
            state.ready = True


        def test_b_env():
            assert os.environ.get("OD_READY") == "1"


        def test_b_file(root):
            assert (root / "ready.flag").is_file()


        def test_b_global():
            assert state.ready is True
    """,
}

PLANTED_CHANNELS = (
    "global",
    "classattr",
    "environ",
    "cwd",
    "syspath",
    "sysmodules",
    "file_new",
    "file_changed",
    "file_deleted",
    "session",
    "home",
    "tmp",
    "basetemp",
)


def planted_at(root: Path) -> Planted:
    """Write the planted project at ``root`` and describe its dependencies."""
    write_files(root, PLANTED_FILES)
    planted = Planted(root)
    for channel in PLANTED_CHANNELS:
        victim = f"tests/test_victims.py::test_v_{channel}"
        planted.polluters[victim] = f"tests/test_polluters.py::test_p_{channel}"
    scoped = "tests/test_scoped.py"
    planted.polluters[f"{scoped}::test_v_modfix"] = f"{scoped}::test_p_modfix"
    planted.same_module_only.add(f"{scoped}::test_v_modfix")
    planted.polluters[f"{scoped}::TestShared::test_v_shared"] = (
        f"{scoped}::TestShared::test_p_shared"
    )
    for kind in ("env", "file", "global"):
        planted.setters[f"tests/test_brittle.py::test_b_{kind}"] = (
            f"tests/test_brittle.py::test_s_{kind}"
        )
    return planted


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    """The planted project (shared by a module's tests; the engine never changes it)."""
    return planted_at(tmp_path_factory.mktemp("planted") / "proj")
