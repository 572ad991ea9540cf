"""No process outlives ``orderdep detect`` on SIGINT, SIGTERM or SIGHUP, in any phase.

Each try starts a real ``orderdep detect`` (in a session of its own, with an environment
marker every process it starts inherits) on a small project whose tests sleep briefly and
one of which starts a process of its own (``sleep 30``), sends a stop signal at a seeded
random moment of a chosen phase (start-up, collection, the fork-runner check, the search,
confirmation; to orderdep alone as ``kill`` does, or to its process group as a terminal's
Ctrl-C does; once or twice), and then checks the exit code, that no process carrying the
marker is alive shortly after, and that no working directory is left. The slow loop takes
its length and seed from ``ORDERDEP_SIGNAL_TRIES`` and ``ORDERDEP_SIGNAL_SEED``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Optional

import pytest
from clitools import write_files

MARKER = "ORDERDEP_SIGNAL_TEST"
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
# The stderr line that opens each phase (None: the command's start), and the longest
# delay after it at which the signal is sent.
PHASES: dict[str, tuple[Optional[str], float]] = {
    "start": (None, 0.6),
    "collection": ("orderdep: seed ", 0.8),
    "check": ("checking the fork runner against", 1.5),
    "search": ("orderdep: search: ", 1.5),
    "confirmation": ("orderdep: confirming", 1.0),
}
# Seconds a process may take to disappear after orderdep exited.
GRACE = 5.0

PROJECT = {
    "pytest.ini": "[pytest]\n",
    "test_s.py": """
        import os
        import subprocess
        import time

        STATE = []


        def test_a():
            time.sleep(0.1)


        def test_victim():
            time.sleep(0.1)
            assert not STATE


        def test_spawn():
            subprocess.Popen(["sleep", "30"])
            time.sleep(float(os.environ.get("SIGNAL_TEST_SLEEP", "0.2")))


        def test_b():
            time.sleep(0.1)


        def test_polluter():
            STATE.append(1)
            time.sleep(0.1)
    """,
}


def marked(token: str) -> dict[int, str]:
    """pid -> command line of every live (not zombie) process whose environment holds
    the marker ``token``."""
    wanted = f"{MARKER}={token}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if wanted not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if state != "Z":
            found[int(entry.name)] = cmdline.strip()
    return found


@dataclass
class Try:
    """One signalled run and what it left."""

    signum: int
    phase: str
    jobs: int
    to_group: bool
    budget: bool = True
    slow: bool = False
    runner: str = "fork"
    twice: bool = False
    seconds: Optional[float] = None  # from the (first) signal to the exit; shown, not checked
    code: Optional[int] = None
    sent: bool = False
    left: dict[int, str] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    err: str = ""

    def describe(self) -> str:
        target = "group" if self.to_group else "pid"
        how = f"--runner {self.runner} --jobs {self.jobs}" + (" --budget 10" * self.budget)
        slow = ", a 12 s test" if self.slow else ""
        twice = " twice" if self.twice else ""
        return (
            f"{signal.Signals(self.signum).name}{twice} to {target} in {self.phase} "
            f"({how}{slow}): exit {self.code}"
        )

    @property
    def right_code(self) -> bool:
        """128 + the signal, or killed by it before orderdep's handlers were installed
        (the interpreter still starting: nothing to clean up yet), which a shell also
        reports as 128 + the signal."""
        return self.code in (CODES[signal.Signals(self.signum)], -self.signum)

    @property
    def ended_by_itself(self) -> bool:
        """The run finished before the signal took effect (a moment aimed too late)."""
        return (
            self.code in (0, 1)
            and "orderdep: interrupted" not in self.err
            and ("orderdep: stopped by" not in self.err)
        )


def signal_once(root: Path, rng: random.Random, result: Try) -> Try:
    """Run ``orderdep detect`` in ``root``, signal it in ``result.phase``, wait for it to
    end, and fill in ``result``."""
    token = uuid.uuid4().hex
    tmp = root / "tmp"
    tmp.mkdir(parents=True)
    project = write_files(root / "proj", PROJECT)
    env = {
        **os.environ,
        MARKER: token,
        "TMPDIR": str(tmp),
        "PYTEST_ADDOPTS": "-p no:hypothesispytest",
        "SIGNAL_TEST_SLEEP": "12" if result.slow else "0.2",
    }
    argv = [sys.executable, "-c", "from orderdep.shells.cli import run; run()", "detect"]
    argv += [str(project), "--seed", "1", "--jobs", str(result.jobs), "--runner", result.runner]
    argv += ["--budget", "10"] if result.budget else []
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    seen = threading.Event()
    wanted, longest = PHASES[result.phase]
    if result.slow:
        longest *= 2
    assert proc.stderr is not None

    def read(stream: IO[str]) -> None:
        for line in stream:
            lines.append(line)
            if wanted is not None and wanted in line:
                seen.set()

    reader = threading.Thread(target=read, args=(proc.stderr,), daemon=True)
    reader.start()
    try:
        if wanted is None:
            seen.set()
        while not seen.wait(0.02) and proc.poll() is None and time.monotonic() - started < 120:
            pass
        if seen.is_set():
            time.sleep(rng.uniform(0, longest))
            if proc.poll() is None:
                for n in range(2 if result.twice else 1):
                    if n:  # pressed again while it cleans up
                        time.sleep(rng.uniform(0, 0.3))
                    if proc.poll() is not None:
                        break
                    if result.to_group:
                        os.killpg(proc.pid, result.signum)
                    else:
                        proc.send_signal(result.signum)
                    if not result.sent:
                        result.sent, sent_at = True, time.monotonic()
        result.code = proc.wait(timeout=120)
        if result.sent:
            result.seconds = time.monotonic() - sent_at
        reader.join(timeout=10)
        result.err = "".join(lines)
        deadline = time.monotonic() + GRACE
        result.left = marked(token)
        while result.left and time.monotonic() < deadline:
            time.sleep(0.05)
            result.left = marked(token)
        result.dirs = sorted(p.name for p in tmp.iterdir() if p.name.startswith("orderdep-"))
    finally:
        for pid in marked(token):  # never leave them to the next test
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return result


def failures(tries: list[Try]) -> list[str]:
    """What went wrong in ``tries``, one entry per try that failed."""
    out = []
    for t in tries:
        problems = []
        if t.sent and not t.ended_by_itself and not t.right_code:
            problems.append(f"exit code {t.code}, expected {CODES[signal.Signals(t.signum)]}")
        if t.left:
            shown = "; ".join(f"{pid}: {cmd}" for pid, cmd in sorted(t.left.items()))
            problems.append(f"{len(t.left)} process(es) left: {shown}")
        if t.dirs:
            problems.append(f"working directories left: {t.dirs}")
        if problems:
            out.append(f"{t.describe()}: " + "; ".join(problems) + "\n" + t.err[-2000:])
    return out


def signal_tries(tmp_path: Path, seed: int, plan: list[tuple[int, str]]) -> list[Try]:
    """One try per (signal, phase) of ``plan``; the rest of each try drawn from ``seed``:
    ``--jobs`` 1 or 2, the signal to orderdep or to its process group, with or without
    ``--budget``, the fork or the subprocess runner (which has no check phase), the signal
    sent once or twice, and (for the phases before the search) one test lasting 12 s."""
    rng = random.Random(seed)
    tries = []
    for n, (signum, phase) in enumerate(plan):
        planned = Try(signum, phase, jobs=rng.choice((1, 2)), to_group=rng.random() < 0.5)
        planned.budget = rng.random() < 0.5
        planned.slow = phase in ("start", "collection", "check") and rng.random() < 0.4
        if phase != "check" and rng.random() < 0.25:
            planned.runner = "subprocess"
        planned.twice = rng.random() < 0.25
        tries.append(signal_once(tmp_path / f"t{n}", rng, planned))
    return tries


@pytest.mark.slow
def test_a_signal_in_any_phase_leaves_no_process_and_no_directory(tmp_path: Path) -> None:
    plan = [
        (signal.SIGINT, "check"),
        (signal.SIGTERM, "search"),
        (signal.SIGHUP, "confirmation"),
        (signal.SIGINT, "collection"),
    ]
    tries = signal_tries(tmp_path, 5, plan)
    assert not failures(tries), "\n\n".join(failures(tries))
    assert sum(t.sent and not t.ended_by_itself for t in tries) >= 3


@pytest.mark.slow
def test_signals_at_random_moments_leave_no_process_and_no_directory(tmp_path: Path) -> None:
    n = int(os.environ.get("ORDERDEP_SIGNAL_TRIES", "30"))
    seed = int(os.environ.get("ORDERDEP_SIGNAL_SEED", "2024"))
    rng = random.Random(seed)
    plan = [(rng.choice(list(CODES)), rng.choice(list(PHASES))) for _ in range(n)]
    tries = signal_tries(tmp_path, seed, plan)
    failed = failures(tries)
    for t in tries:
        after = f" {t.seconds:.1f} s after the signal" if t.seconds is not None else ""
        print(f"{t.describe()}{after}: {len(t.left)} process(es) left, {len(t.dirs)} dirs")
    signalled = sum(t.sent and not t.ended_by_itself for t in tries)
    print(
        f"{len(tries)} tries (seed {seed}), {signalled} stopped by the signal, {len(failed)} failed"
    )
    assert not failed, f"{len(failed)} of {len(tries)} tries failed:\n\n" + "\n\n".join(failed)


def test_kill_9_of_orderdep_ends_the_order_its_fork_server_runs(tmp_path: Path) -> None:
    """Even when orderdep itself cannot clean up, its fork server notices that it is gone
    and kills the running order (and the process its test started) instead of running it
    to its end. (Working directories are left to the next run's clean-up.)"""
    token = uuid.uuid4().hex
    project = write_files(tmp_path / "proj", PROJECT)
    (tmp_path / "tmp").mkdir()
    env = {
        **os.environ,
        MARKER: token,
        "TMPDIR": str(tmp_path / "tmp"),
        "PYTEST_ADDOPTS": "-p no:hypothesispytest",
        "SIGNAL_TEST_SLEEP": "60",
    }
    argv = [sys.executable, "-c", "from orderdep.shells.cli import run; run()", "detect"]
    argv += [str(project), "--no-check", "--strategy", "original", "--seed", "1"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if any(cmd == "sleep 30" for cmd in marked(token).values()):
                break  # the order is in test_spawn
            time.sleep(0.05)
        assert proc.poll() is None
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + GRACE
        while marked(token) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marked(token) == {}
    finally:
        for pid in marked(token):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
