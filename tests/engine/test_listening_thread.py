"""A status server started as pytest configures (pytest-rerunfailures starts one when
pytest-xdist is installed): a daemon thread waiting in ``accept`` leaves the fork runner
forking after collection, and its outcomes are plain pytest's."""

from __future__ import annotations

from pathlib import Path

from fidelity_helpers import assert_same_everywhere, run_three
from tests.engine.conftest import write_files

FILES = {
    "conftest.py": """
        import socket
        import threading


        def pytest_configure(config):
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen()

            def serve():
                while True:
                    conn, _ = server.accept()
                    conn.close()

            threading.Thread(target=serve, daemon=True).start()
    """,
    "test_state.py": """
        STATE = []


        def test_writes():
            STATE.append(1)


        def test_reads():
            assert not STATE
    """,
}


def test_a_listening_daemon_thread_keeps_the_fork_runner(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", FILES)
    runs = run_three(project, tmp_path / "work", seeds=range(2))
    assert runs.runner_used["fork"] == "fork", runs.notices["fork"]
    assert_same_everywhere(runs)
