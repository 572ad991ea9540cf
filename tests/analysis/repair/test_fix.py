"""Repair end to end (fork runner): every strategy must produce a patch that verifies."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.sources import transplant
from orderdep.analysis.repair.fix import (
    Repairer,
    read_function,
    target_for,
)
from orderdep.analysis.repair.fix_result import apply_fix
from orderdep.analysis.repair.write.patches import apply_insertions
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import UsageError

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/jobs.py": '''
        """Scheduled jobs."""
        _JOBS = {}


        def add(name):
            _JOBS[name] = "new"


        def cancel(name):
            _JOBS.pop(name, None)


        def reset():
            _JOBS.clear()


        def count():
            return len(_JOBS)
        ''',
    "app/meter.py": """
        class Meter:
            hits = 0

            @classmethod
            def bump(cls):
                cls.hits += 1
        """,
    "app/config.py": """
        _CONFIG = {}


        def load(values):
            _CONFIG.update(values)


        def get(key):
            return _CONFIG.get(key)
        """,
    "app/conn.py": """
        class Connection:
            def __init__(self):
                self.closed = False


        CONN = Connection()
        """,
    "app/settings.py": """
        import functools
        import os


        @functools.lru_cache(maxsize=None)
        def mode():
            return os.environ.get("APP_MODE_SETTING", "normal")
        """,
    "tests/test_jobs.py": '''
        from app import jobs


        def test_add_job():
            jobs.add("job_7")
            assert jobs.count() == 1


        def test_no_jobs():
            """Starts empty."""
            # nothing is scheduled yet
            assert jobs.count() == 0


        def test_cancel_job():
            total = 1 + 1
            jobs.cancel("job_7")
            assert total == 2
        ''',
    "tests/test_meter.py": """
        from app.meter import Meter


        def test_bump():
            Meter.bump()


        def test_fresh():
            assert Meter.hits == 0
        """,
    "tests/test_config.py": """
        from app import config


        def test_load_prod():
            config.load({"mode": "prod"})
            assert config.get("mode") == "prod"


        def test_mode_is_prod():
            assert config.get("mode") == "prod"
        """,
    "tests/test_fixture_reader.py": """
        import pytest

        from app import jobs


        @pytest.fixture
        def jobs_at_start():
            return jobs.count()


        def test_add_more():
            jobs.add("job_9")


        def test_starts_empty(jobs_at_start):
            assert jobs_at_start == 0
        """,
    "tests/test_channels.py": """
        import os
        import pathlib

        from app import jobs, settings
        from app.conn import CONN

        _SEEN = []


        def test_set_env():
            os.environ["APP_DEBUG"] = "1"


        def test_env_unset():
            assert "APP_DEBUG" not in os.environ


        def test_write_file():
            pathlib.Path("state.txt").write_text("dirty")


        def test_no_file():
            assert not pathlib.Path("state.txt").exists()


        def test_cache_fill(monkeypatch):
            monkeypatch.setenv("APP_MODE_SETTING", "fast")
            assert settings.mode() == "fast"


        def test_cache_default():
            assert settings.mode() == "normal"


        def test_seen_add():
            _SEEN.append("x")


        def test_seen_empty():
            assert _SEEN == []


        def test_close():
            CONN.closed = True


        def test_open():
            assert not CONN.closed


        def test_fill_both():
            _SEEN.append("y")
            jobs.add("job_8")


        def test_both_empty():
            assert _SEEN == [] and jobs.count() == 0
        """,
}
J, MT, C, CH = (f"tests/test_{m}.py::" for m in ("jobs", "meter", "config", "channels"))


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # its shutdown costs ~1 s per pytest process; these projects do not use it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def write_project(root: Path, files: dict[str, str]) -> Path:
    return write_files(root, files)


def tree_texts(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*.py")
        if "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("fix") / "proj", FILES)


def repair(engine: Engine, finding: ODFinding, strategy: str) -> Repairer:
    return Repairer(engine.config, engine, strategy=strategy)


def test_cleaner_statements_are_minimised_into_the_victim(engine: Engine, project: Path) -> None:
    before = tree_texts(project)
    finding = ODFinding(
        J + "test_no_jobs", "victim", polluters=[J + "test_add_job"],
        cleaners={J + "test_add_job": [J + "test_cancel_job"]},
    )  # fmt: skip
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.strategy == "cleaner"
    assert result.fix.description == (
        f"1 of the 2 statements of cleaner {J}test_cancel_job (minimised by delta debugging)"
    )
    hunk = [
        " def test_no_jobs():",
        '     """Starts empty."""',
        "+    # Clean up what an earlier test (test_add_job) may leave behind.",
        '+    jobs.cancel("job_7")',
        "     # nothing is scheduled yet",
        "     assert jobs.count() == 0",
    ]
    assert "\n".join(hunk) in result.fix.diff
    assert [line for line in result.fix.diff.splitlines() if line.startswith("+ ")] == [
        "+    # Clean up what an earlier test (test_add_job) may leave behind.",
        '+    jobs.cancel("job_7")',
    ]
    assert result.fix.size == 1  # the comment explains; it is not counted
    assert result.fix.verification.ok
    assert tree_texts(project) == before  # nothing written without apply_fix


def test_generated_reset_from_the_app_module(engine: Engine) -> None:
    finding = ODFinding(J + "test_no_jobs", "victim", polluters=[J + "test_add_job"])
    result = Repairer(engine.config, engine, strategy="generated").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == ("jobs.reset()",)
    assert result.debug is not None and result.debug.polluted == ["app.jobs._JOBS"]


def test_restore_through_monkeypatch_when_no_reset_method_exists(engine: Engine) -> None:
    finding = ODFinding(MT + "test_fresh", "victim", polluters=[MT + "test_bump"])
    auto = Repairer(engine.config, engine, strategy="auto").repair(finding)
    assert any("generated: none of" in n for n in auto.notes)  # bump() is no reset
    assert auto.fix is not None and auto.fix.strategy == "polluter"  # the root cause first
    result = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.strategy == "restore"
    assert result.fix.insertions[0].statements == ("monkeypatch.setattr(Meter, 'hits', 0)",)
    assert "+def test_fresh(monkeypatch):" in result.fix.diff


def test_brittle_gets_its_state_setters_statement(engine: Engine) -> None:
    finding = ODFinding(C + "test_mode_is_prod", "brittle", state_setters=[C + "test_load_prod"])
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    # the debugger runs for a brittle's cleaner too: the root it needs is saved first and
    # put back when the test ends, so the state set up does not outlive it
    assert result.fix.insertions[0].statements == (
        "import copy",
        "monkeypatch.setattr(config, '_CONFIG', copy.deepcopy(config._CONFIG))",
        'config.load({"mode": "prod"})',
    )
    assert result.fix.description.endswith(", undone when it ends")


def test_polluter_undoes_its_change(engine: Engine) -> None:
    finding = ODFinding(J + "test_no_jobs", "victim", polluters=[J + "test_add_job"])
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.fix is not None, result.notes
    ins = result.fix.insertions[0]
    assert ins.test == J + "test_add_job"
    # only the key it adds is dropped again when it ends
    assert ins.statements == ("request.addfinalizer(lambda: jobs._JOBS.pop('job_7', None))",)


@pytest.mark.parametrize(
    ("polluter", "victim", "statement"),
    [
        ("test_set_env", "test_env_unset", "monkeypatch.delenv('APP_DEBUG', raising=False)"),
        ("test_write_file", "test_no_file", "request.config.rootpath.joinpath('state.txt').unlink(missing_ok=True)"),
        ("test_cache_fill", "test_cache_default", "settings.mode.cache_clear()"),
        ("test_seen_add", "test_seen_empty", "_SEEN[:] = []"),
        ("test_close", "test_open", "monkeypatch.setattr(CONN, 'closed', False)"),
        ("test_fill_both", "test_both_empty", "jobs._JOBS.clear() ; _SEEN[:] = []"),
    ],
)  # fmt: skip
def test_restore_each_channel(engine: Engine, polluter: str, victim: str, statement: str) -> None:
    finding = ODFinding(CH + victim, "victim", polluters=[CH + polluter])
    result = Repairer(engine.config, engine, strategy="restore", full_suite=False).repair(finding)
    assert result.fix is not None, result.notes
    for stmt in statement.split(" ; "):  # roots needed together: one statement each
        assert stmt in result.fix.insertions[0].statements


def test_unverifiable_candidates_are_not_offered(engine: Engine) -> None:
    # the victim reads the state in a fixture, before any statement inserted into its
    # body runs: reset() passes the cheap screening (run before setup) but a real patch
    # cannot work, so verification rejects it
    fr = "tests/test_fixture_reader.py::"
    finding = ODFinding(fr + "test_starts_empty", "victim", polluters=[fr + "test_add_more"])
    result = Repairer(engine.config, engine, strategy="generated").repair(finding)
    assert result.debug is not None and result.debug.polluted == ["app.jobs._JOBS"]
    assert result.candidates >= 1 and result.verified >= 1
    assert result.fix is None
    assert any("rejected" in n and "still failed" in n for n in result.notes), result.notes
    # guarding the polluter does work
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.fix is not None and result.fix.verification.ok


def test_polluter_guard_for_an_object_changed_in_place(engine: Engine) -> None:
    finding = ODFinding(CH + "test_open", "victim", polluters=[CH + "test_close"])
    result = Repairer(engine.config, engine, strategy="polluter").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == (
        "monkeypatch.setattr(CONN, 'closed', CONN.closed)",
    )


def test_apply_fix_writes_through_libcst(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", FILES)
    with Engine(EngineConfig(root)) as engine:
        finding = ODFinding(J + "test_no_jobs", "victim", polluters=[J + "test_add_job"])
        result = Repairer(engine.config, engine, strategy="generated").repair(finding)
        assert result.fix is not None
        assert apply_fix(root, result.fix) == ["tests/test_jobs.py"]
        assert apply_fix(root, result.fix) == []  # already there: nothing to do
    text = (root / "tests/test_jobs.py").read_text()
    assert (
        '    """Starts empty."""\n'
        "    # Reset app.jobs._JOBS: an earlier test (test_add_job) may leave it changed.\n"
        "    jobs.reset()\n"
        "    # nothing is scheduled yet\n"
    ) in text
    with Engine(EngineConfig(root)) as engine:
        assert engine.run([J + "test_add_job", J + "test_no_jobs"]).failed_tests() == []


def test_targets_cover_every_known_order() -> None:
    f = ODFinding(
        "t", "victim", polluters=["p", "q"], polluter_groups=[["a", "b"]],
        failing_order=["x", "p", "t", "y"], passing_order=["t", "y"],
    )  # fmt: skip
    target = target_for(f, "victim", ["p", "t"], ["t"])
    assert target.failing_orders == [["p", "t"], ["q", "t"], ["a", "b", "t"], ["x", "p", "t"]]
    assert target.passing_orders == [["t"]]


def test_a_victim_of_many_polluters_is_verified_after_each() -> None:
    """A fix that says it makes every polluter undo its change is checked after each."""
    polluters = [f"p{i}" for i in range(12)]
    f = ODFinding("t", "victim", polluters=polluters, failing_order=["p0", "t"])
    target = target_for(f, "victim", ["p0", "t"], ["t"])
    assert target.failing_orders == [[p, "t"] for p in polluters]


def test_cleaner_from_another_module_brings_its_imports(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {
            **FILES,
            "tests/test_admin.py": """
                from app import jobs as j
                from app.meter import Meter as M

                def test_purge(tmp_path):
                    j.cancel("job_7")
                    M.hits = 0
                    (tmp_path / "x").write_text("")
                """,
        },
    )
    donor = read_function(root, "tests/test_admin.py::test_purge")
    victim = read_function(root, J + "test_no_jobs")
    assert donor.params == ["tmp_path"]
    ins = transplant(donor.statements, donor, victim)
    assert ins.test == J + "test_no_jobs"
    assert ins.statements == (
        "from app import jobs as j",
        "from app.meter import Meter as M",
        'j.cancel("job_7")',
        "M.hits = 0",
        '(tmp_path / "x").write_text("")',
    )
    assert ins.fixtures == ("tmp_path",)


def test_unknown_strategy_is_refused(engine: Engine) -> None:
    with pytest.raises(UsageError, match="unknown strategy 'magic'"):
        Repairer(engine.config, engine, strategy="magic")


def test_a_test_generated_at_runtime_cannot_be_patched(project: Path) -> None:
    from orderdep.analysis.repair.write.patches import Insertion

    with pytest.raises(UsageError, match="cannot find the function"):
        apply_insertions(project, [Insertion(J + "test_missing", ("x = 1",))])


def test_fixture_strategy_adds_an_autouse_fixture_to_a_new_conftest(engine: Engine) -> None:
    finding = ODFinding(CH + "test_env_unset", "victim", polluters=[CH + "test_set_env"])
    result = Repairer(engine.config, engine, strategy="fixture", full_suite=False).repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.strategy == "fixture"
    assert result.fix.diff == textwrap.dedent(
        """\
        diff --git a/tests/conftest.py b/tests/conftest.py
        new file mode 100644
        --- /dev/null
        +++ b/tests/conftest.py
        @@ -0,0 +1,7 @@
        +import pytest
        +
        +
        +@pytest.fixture(autouse=True)
        +def _restore_app_debug(monkeypatch):
        +    # Unset $APP_DEBUG before every test (test_env_unset needs it).
        +    monkeypatch.delenv('APP_DEBUG', raising=False)
        """
    )
