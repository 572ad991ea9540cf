"""A forked child behaves like a fresh ``python -m pytest``: each mechanism of
:mod:`orderdep.engine.childstate` (and the child plugin) checked against plain pytest.

Every order runs under the fork runner, the subprocess runner and plain pytest; the
outcomes must be the expected ones under all three (so a test here fails when any runner
drifts, not only when they drift apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from tests.engine.conftest import ProjectWriter

from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine

M = "tests/test_shapes.py::"

SHAPES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/streams.py": """
        import logging
        import sys

        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
        log = logging.getLogger("app")


        class Reporter:
            def __init__(self):
                self.stream = sys.stderr  # saved at import, as many libraries do
                self.out = sys.stdout

            def warn(self, text):
                self.stream.write(text + "\\n")
                self.stream.flush()

            def say(self, text):
                print(text, file=self.out)


        REPORTER = Reporter()
        """,
    "app/state.py": """
        import atexit
        import gc
        import os
        import signal
        import sys
        import tempfile
        import weakref

        ARGV_AT_IMPORT = list(sys.argv)
        CACHE_DIR = tempfile.mkdtemp(prefix="appcache-")


        def _on_term(signum, frame):
            pass


        signal.signal(signal.SIGUSR1, _on_term)


        class Node:
            def __init__(self):
                self.me = self  # a reference cycle: only the cycle collector frees it


        NODE = Node()
        NODE_REF = weakref.ref(NODE)
        """,
    "tests/test_shapes.py": """
        import inspect
        import os
        import signal
        import sys

        from app import state
        from app.streams import REPORTER, log


        def test_saved_stderr():
            REPORTER.warn("written through sys.stderr saved at import")


        def test_saved_stdout():
            REPORTER.say("written through sys.stdout saved at import")


        def test_logging_configured_at_import(caplog):
            log.warning("hello")
            assert "hello" in caplog.text
            log.handlers = []


        def test_argv_is_the_users():
            assert sys.argv[1:] == ["-q"], sys.argv
            assert sys.orig_argv[-3:] == ["-m", "pytest", "-q"], sys.orig_argv
            assert state.ARGV_AT_IMPORT[1:] == ["-q"], state.ARGV_AT_IMPORT


        def test_signal_handlers():
            assert signal.getsignal(signal.SIGUSR1) is state._on_term
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


        def test_cache_dir_made_at_import_is_empty():
            assert os.path.isdir(state.CACHE_DIR)
            assert os.listdir(state.CACHE_DIR) == []


        def test_writes_into_cache_dir():
            with open(os.path.join(state.CACHE_DIR, "entry"), "w") as fh:
                fh.write("x")


        def test_cycle_collected():
            import gc

            state.NODE = None
            gc.collect()
            assert state.NODE_REF() is None, "an object made at import was not collected"


        def test_recursion_headroom():
            depth = len(inspect.stack(0))
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(depth + 40)
            try:
                def down(n):
                    return 0 if n == 0 else down(n - 1)
                down(25)
            finally:
                sys.setrecursionlimit(limit)
            assert depth == int(os.environ["EXPECTED_DEPTH"]), depth


        def test_registers_exit_handler():
            import atexit

            def mark():
                with open(os.environ["EXIT_MARKER"], "a") as fh:
                    fh.write("ran\\n")

            atexit.register(mark)
        """,
}


def _plain_depth(project: Path, tmp_path: Path) -> int:
    """The stack depth of a test body under plain pytest (measured, not assumed)."""
    import subprocess
    import sys

    (tmp_path / "depth").mkdir()
    probe = tmp_path / "depth" / "test_depth.py"
    probe.write_text(
        "import inspect\ndef test_depth():\n    assert 0, len(inspect.stack(0))\n", "utf-8"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            str(probe),
        ],
        cwd=tmp_path / "depth",
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("E ") and "AssertionError" in x)
    return int(line.rsplit(":", 1)[1].split()[0])


@pytest.fixture
def shapes(make_project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(SHAPES)
    monkeypatch.setenv("EXPECTED_DEPTH", str(_plain_depth(project, tmp_path)))
    monkeypatch.setenv("EXIT_MARKER", str(tmp_path / "exit-marker"))
    return project


def _outcomes(results: Sequence[object]) -> list[str]:
    return [r.outcome.value for r in results]  # type: ignore[attr-defined]


def test_fork_subprocess_and_plain_pytest_agree_on_every_mechanism(
    shapes: Path, tmp_path: Path
) -> None:
    config = EngineConfig(shapes, pytest_args=("-q",))
    with Engine(config) as engine:
        ids = engine.suite.ids
    writer, empty = M + "test_writes_into_cache_dir", M + "test_cache_dir_made_at_import_is_empty"
    orders = [
        ids,
        list(reversed(ids)),
        [writer, empty],  # the import-time cache dir is shared within an order ...
        [empty, writer, empty],  # ... and put back between orders
        [M + "test_cycle_collected", M + "test_saved_stderr"],
    ]
    reverse = ["passed"] * len(ids)
    reverse[ids[::-1].index(empty)] = "failed"  # after the writer, within one process
    expected = [
        ["passed"] * len(ids),
        reverse,
        ["passed", "failed"],
        ["passed", "passed", "failed"],
        ["passed", "passed"],
    ]
    runs: dict[str, list[list[str]]] = {}
    messages: dict[str, list[list[str]]] = {}
    for runner in ("fork", "subprocess"):
        with Engine(EngineConfig(shapes, runner=runner, pytest_args=("-q",))) as engine:
            results = engine.run_many(orders)
        assert all(r.runner == runner for r in results)
        runs[runner] = [_outcomes(r.results) for r in results]
        messages[runner] = [[x.message for x in r.results] for r in results]
    plain = PlainRunner(config, tmp_path / "plain")
    try:
        results = [plain.run(o) for o in orders[:3]] + [plain.run(orders[3][:2])]
        results.append(plain.run(orders[4]))
    finally:
        plain.close()
    runs["plain"] = [_outcomes(r.results) for r in results]
    runs["plain"][3] += ["failed"]  # plain pytest cannot repeat a test in one order
    for runner, outcomes in runs.items():
        for order, got, want in zip(orders, outcomes, expected):
            assert got == want, (runner, order, got, messages.get(runner))
    assert (tmp_path / "exit-marker").read_text().count("ran") == 2 * 2 + 2


def test_output_through_a_saved_stream_is_captured(
    shapes: Path, tmp_path: Path, make_engine: object
) -> None:
    """What a test writes through a stream saved at import lands in pytest's capture, not
    in the process's own output (plain pytest shows it under "Captured stderr")."""
    with Engine(EngineConfig(shapes, runner="fork")) as engine:
        engine.run([M + "test_saved_stderr"])
        log = engine._workers[0].log_path.read_text()
    assert "written through sys.stderr saved at import" not in log


@pytest.mark.parametrize("runner", ["fork", "subprocess"])
def test_processes_started_by_tests_end_with_their_order(
    make_project: ProjectWriter, tmp_path: Path, runner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    pids = tmp_path / "pids"
    monkeypatch.setenv("PID_FILE", str(pids))
    project = make_project(
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_spawn.py": """
                import os
                import subprocess

                def test_starts_a_server_and_forgets_it():
                    proc = subprocess.Popen(["sleep", "600"])
                    with open(os.environ["PID_FILE"], "a") as fh:
                        fh.write(f"{proc.pid}\\n")
                """,
        }
    )
    with Engine(EngineConfig(project, runner=runner)) as engine:
        result = engine.run(engine.suite.ids)
        assert [r.outcome.value for r in result.results] == ["passed"]
        (pid,) = [int(x) for x in pids.read_text().split()]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            # a zombie until its parent (gone) is reaped by init: look at its state
            stat = Path(f"/proc/{pid}/stat")
            if not stat.exists() or stat.read_text().split()[2] == "Z":
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"process {pid} started by the test outlived its order")


_FIRST = repr(__import__("random").Random(16).random())
SEEDED = {
    "pytest.ini": "[pytest]\n",
    # the suite seeds both global generators while it is collected, as many do
    "conftest.py": "import random\n\nrandom.seed(16)\n",
    "tests/test_draws.py": f"""
        import random

        import numpy as np

        np.random.seed(4135157)
        FIRST_NP = np.random.RandomState(4135157).rand()


        def test_first_draw():
            assert random.random() == {_FIRST}


        def test_first_numpy_draw():
            assert np.random.rand() == FIRST_NP


        def test_draws_both():
            random.random()
            np.random.rand()
        """,
}
D = "tests/test_draws.py::"


@pytest.mark.slow
def test_generators_the_suite_seeded_start_each_order_as_in_a_fresh_process(
    make_project: ProjectWriter, tmp_path: Path
) -> None:
    pytest.importorskip("numpy")
    project = make_project(SEEDED)
    first, first_np, both = (
        D + "test_first_draw",
        D + "test_first_numpy_draw",
        D + "test_draws_both",
    )
    orders = [[first, first_np], [both, first, first_np], [first_np, first], [both, first_np]]
    expected = [
        ["passed"] * 2,
        ["passed", "failed", "failed"],
        ["passed"] * 2,
        ["passed", "failed"],
    ]
    for runner in ("fork", "subprocess"):
        with Engine(EngineConfig(project, runner=runner)) as engine:
            results = engine.run_many([*orders, *orders])  # each child starts afresh
        assert [_outcomes(r.results) for r in results] == expected * 2, runner
        assert all(r.runner == runner for r in results)
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    try:
        assert [_outcomes(plain.run(o).results) for o in orders] == expected
    finally:
        plain.close()


def test_generators_nothing_seeded_are_reseeded_in_every_child(
    make_project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("numpy")
    drawn = tmp_path / "drawn"
    monkeypatch.setenv("DRAWN", str(drawn))
    project = make_project(
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_noise.py": """
                import os
                import random

                import numpy as np

                np.random.rand()  # drawn at import, never seeded


                def test_noise():
                    with open(os.environ["DRAWN"], "a") as fh:
                        fh.write(f"{random.random()} {np.random.rand()}\\n")
                """,
        }
    )
    with Engine(EngineConfig(project, runner="fork")) as engine:
        engine.run_many([["tests/test_noise.py::test_noise"]] * 4)
    lines = drawn.read_text().split("\n")[:-1]
    assert len(lines) == 4
    assert len({line.split()[0] for line in lines}) == 4  # random: as 4 fresh processes
    assert len({line.split()[1] for line in lines}) == 4  # numpy too
