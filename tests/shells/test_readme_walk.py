"""README.md, walked: every command of its code blocks, in order, on a copy of the bundled
example, after the set-up the README names (this test's own venv is that set-up), with
the exit code and the output lines the README shows."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BOOKSHOP = "examples/bookshop"


@dataclass(frozen=True)
class Step:
    """How the walk runs one README command: where, what it exits with, or that it is
    set-up this test's venv already did (``setup``), or a server left running (``serve``)."""

    cwd: str = "."
    code: int = 0
    setup: str = ""
    serve: bool = False


SETUP_VENV = "python3 -m venv .venv && .venv/bin/pip install -e . && "
# Every command of the README's code blocks, in order, and how the walk runs it.
WALK: list[tuple[str, Step]] = [
    (f"{SETUP_VENV}.venv/bin/orderdep detect examples/bookshop --classify", Step(code=1)),
    (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m "
        "pytest -q",
        Step(setup="this test run"),
    ),
    ("pip install pytest-randomly", Step(setup="pytest_randomly")),
    ("pytest -p randomly --randomly-seed=1", Step(cwd=BOOKSHOP, code=1)),
    ("orderdep why tests/test_cart.py::test_total_of_two_books --last", Step(cwd=BOOKSHOP)),
    ("dask scheduler", Step(serve=True)),
    ("dask worker tcp://HOST:8786 --nthreads 2", Step(serve=True)),
    ("orderdep detect . --classify --dask tcp://HOST:8786", Step(cwd=BOOKSHOP, code=1)),
    ("orderdep report examples/bookshop --open", Step()),
    ("orderdep deps", Step(cwd=BOOKSHOP)),
    ("pytest -p randomly --orderdep-deps orderdep-deps.json", Step(cwd=BOOKSHOP)),
    ("pytest -k test_find_by_author --orderdep-deps orderdep-deps.json", Step(cwd=BOOKSHOP)),
    (
        "pytest tests/test_search.py::test_find_by_author --orderdep-deps orderdep-deps.json",
        Step(cwd=BOOKSHOP),
    ),
    (
        "pytest --orderdep-deps orderdep-deps.json --orderdep-shards 4 --orderdep-shard 1",
        Step(cwd=BOOKSHOP),
    ),
    ("pytest -n 2 --orderdep-deps orderdep-deps.json", Step(cwd=BOOKSHOP)),
]


def readme_commands() -> list[tuple[str, list[str]]]:
    """(command, the output lines shown after it) for every command of a ``sh`` or
    ``console`` block, comments cut off."""
    out: list[tuple[str, list[str]]] = []
    text = README.read_text(encoding="utf-8")
    for kind, block in re.findall(r"```(sh|console)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if kind == "console" and not line.startswith("$ "):
                if out and line.strip() != "...":
                    out[-1][1].append(line)
                continue
            command = line[2:] if kind == "console" else line
            command = re.split(r"\s+# ", command, maxsplit=1)[0].strip()
            if command:
                out.append((command, []))
    return out


def test_the_walk_names_every_readme_command_in_order() -> None:
    assert [c for c, _ in readme_commands()] == [c for c, _ in WALK]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_every_readme_command_runs_as_shown(tmp_path: Path) -> None:
    shutil.copytree(ROOT / BOOKSHOP, tmp_path / BOOKSHOP,
                    ignore=shutil.ignore_patterns(".orderdep", "__pycache__", ".pytest_cache"))  # fmt: skip
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "BROWSER": "true"}
    env.pop("PYTEST_ADDOPTS", None)
    port = free_port()
    servers: list[subprocess.Popen[bytes]] = []
    shown = dict(readme_commands())
    try:
        for command, step in WALK:
            if step.setup:
                if step.setup != "this test run":
                    __import__(step.setup)  # installed by the set-up it names
                continue
            run = command.removeprefix(SETUP_VENV).replace(".venv/bin/", "")
            run = run.replace("tcp://HOST:8786", f"tcp://127.0.0.1:{port}")
            if step.serve:
                extra = f" --port {port} --no-dashboard" if run == "dask scheduler" else ""
                servers.append(subprocess.Popen(run + extra, shell=True, cwd=tmp_path, env=env,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                start_new_session=True))  # fmt: skip
                time.sleep(3)
                continue
            proc = subprocess.run(run, shell=True, cwd=tmp_path / step.cwd, env=env,
                                  capture_output=True, text=True, timeout=900)  # fmt: skip
            got = proc.stdout + proc.stderr
            assert proc.returncode == step.code, (command, got)
            for line in shown[command]:
                assert line.strip() in got, (command, line, got)
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    assert (tmp_path / BOOKSHOP / ".orderdep" / "report.html").exists()
