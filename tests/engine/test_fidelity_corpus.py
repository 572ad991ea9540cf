"""The fork and subprocess runners against plain pytest, on projects shaped like real suites.

Each project under ``tests/corpus`` has order-dependent tests (so outcomes really vary
between orders) and tests of what a forked or re-driven pytest could get wrong for its
shape. Every project runs the original order, its reverse, each test alone and ten seeded
shuffles with each runner; outcomes and failure messages must match position by position.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fidelity_helpers import (
    RUNNER_NAMES,
    assert_same_everywhere,
    copy_corpus_project,
    run_three,
)

pytestmark = pytest.mark.slow

PROJECTS = [
    "unittest_classes",
    "fixture_scopes",
    "logging_capture",
    "cli_tools",
    "config_home",
    "registry_reload",
    "doctest_state",
    "filesystem_state",
    "gc_recursion",
    "gc_collect_alias",
    "watchdog",
    "lazy_imports",
    "random_state",
]


@pytest.mark.parametrize("name", PROJECTS)
def test_runners_agree_with_plain_pytest(name: str, tmp_path: Path) -> None:
    project = copy_corpus_project(name, tmp_path / name)
    runs = run_three(project, tmp_path / "work")
    assert runs.runner_used["fork"] == "fork", runs.notices["fork"]
    assert_same_everywhere(runs)


def test_sys_argv_holds_the_users_pytest_arguments(tmp_path: Path) -> None:
    """``main()`` and ``cli.main()`` parse ``sys.argv[1:]``: pytest's own arguments here."""
    project = copy_corpus_project("cli_tools", tmp_path / "cli_tools")
    runs = run_three(
        project, tmp_path / "work", pytest_args=("-q", "tests"), seeds=range(3), alone=False
    )
    assert_same_everywhere(runs)
    failed = {r.test for r in runs.results["plain"][0].results if r.outcome.value == "failed"}
    assert "tests/test_argcli.py::test_parser_defaults" in failed


def test_import_time_thread_falls_back_to_forking_before_collection_and_agrees(
    tmp_path: Path,
) -> None:
    project = copy_corpus_project("import_thread", tmp_path / "import_thread")
    runs = run_three(project, tmp_path / "work")
    assert runs.runner_used["fork"] == "prefork"
    (notice,) = runs.notices["fork"]
    assert notice.startswith(
        "orderdep: cannot fork after collection (threads are alive after collection: "
        "jobs-worker (started at jobs/__init__.py:28)); forking before it instead"
    ), notice
    assert_same_everywhere(runs)


def test_exit_and_signal_handlers_agree(tmp_path: Path) -> None:
    """Outcomes agree, and exit handlers run as at a fresh process's end.

    Every handler writes ``<kind> <pid>`` to a marker file outside the sandbox (one per
    runner): a handler a test registered runs once at the end of the process that ran
    the order, unless a later test of the order unregistered it; the handler registered
    at import never runs twice in one process.
    """
    project = copy_corpus_project("process_hooks", tmp_path / "process_hooks")
    markers = {runner: tmp_path / "markers" / runner for runner in RUNNER_NAMES}
    for directory in markers.values():
        directory.mkdir(parents=True)
    runs = run_three(
        project,
        tmp_path / "work",
        env_for=lambda runner: {"DAEMON_MARKER_DIR": str(markers[runner])},
    )
    assert runs.runner_used["fork"] == "fork", runs.notices["fork"]
    assert_same_everywhere(runs)

    register = "tests/test_exit.py::test_register_exit_handler"
    unregister = "tests/test_exit.py::test_unregister_import_handler_is_possible"
    expected = sum(
        1
        for order in runs.orders
        if register in order
        and not (unregister in order and order.index(unregister) > order.index(register))
    )
    assert expected > 0
    for runner, directory in markers.items():
        lines = (directory / "markers.log").read_text().split()
        kinds = Counter(lines[0::2])
        assert kinds["test"] == expected, runner
        imports = Counter(pid for kind, pid in zip(lines[0::2], lines[1::2]) if kind == "import")
        assert all(n == 1 for n in imports.values()), (runner, imports)


def test_a_project_fork_cannot_mimic_is_caught_and_run_in_fresh_processes(
    tmp_path: Path,
) -> None:
    """A pool made at import that checks its pid, and an ``os.register_at_fork`` hook:
    a forked child cannot look like a fresh process here. The check the analysing
    commands run first names the test, and the engine falls back to subprocesses, whose
    outcomes agree with plain pytest everywhere."""
    from orderdep.analysis.fidelity import VerdictCache
    from orderdep.analysis.fork_trust import trust_fork
    from orderdep.engine.config import EngineConfig
    from orderdep.engine.plain import PlainRunner
    from orderdep.engine.runner import Engine

    project = copy_corpus_project("fork_safe_pool", tmp_path / "fork_safe_pool")
    notices: list[str] = []
    with Engine(EngineConfig(project)) as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "verdicts.json"), notices.append)
        assert report is not None and not report.faithful
        assert engine.runner == "subprocess"
        assert notices[0].startswith("orderdep: checking the fork runner against a fresh pytest")
        assert "the fork runner and a fresh pytest disagree" in notices[-1]
        mismatching = {m.test for m in report.mismatches}
        assert "tests/test_pool.py::test_no_fork_hooks_ran" in mismatching
        ids = engine.suite.ids
        orders = [ids, ids[::-1], *([t] for t in ids)]
        got = [[r.outcome.value for r in engine.run(o).results] for o in orders]
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    try:
        want = [[r.outcome.value for r in plain.run(o).results] for o in orders]
    finally:
        plain.close()
    assert got == want
