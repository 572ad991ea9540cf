"""Running one project's orders with the fork, subprocess and plain runners, and comparing.

The plain runner (a genuine ``python -m pytest`` per order, pytest's own run loop) is the
reference; the fork and subprocess runners must give the same outcome and the same
failure message at every position of every order.
"""

from __future__ import annotations

import random
import re
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from orderdep.core.outcomes import OrderResult
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
RUNNER_NAMES = ("fork", "subprocess", "plain")
REFERENCE = "plain"
SEEDS = range(10)

EnvFor = Callable[[str], dict[str, str]]


def copy_corpus_project(name: str, dest: Path) -> Path:
    """Copy ``tests/corpus/<name>`` to ``dest`` (without caches left by manual runs)."""
    shutil.copytree(
        CORPUS / name,
        dest,
        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc"),
    )
    return dest


def standard_orders(
    ids: Sequence[str], seeds: Sequence[int] = SEEDS, *, alone: bool = True
) -> list[list[str]]:
    """The original order, its reverse, each test alone, one shuffle per seed."""
    orders = [list(ids), list(reversed(ids))]
    if alone:
        orders += [[test] for test in ids]
    for seed in seeds:
        shuffled = list(ids)
        random.Random(seed).shuffle(shuffled)
        orders.append(shuffled)
    return orders


# What legitimately differs between two processes running the same test, and nothing else:
# - each runner works in its own sandbox directory (project copy, HOME, TMPDIR, basetemp),
#   so paths under it are shown from the sandbox root, as <sandbox>;
# - tempfile names (mkdtemp, mkstemp) are random per process: the entry of TMPDIR a path
#   runs through is shown as <tempname>;
# - reprs of objects show their memory address.
_TEMPNAME = re.compile(r"(<sandbox>/tmp/)[^/\s'\"]+")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def normalise(message: str, sandbox: Path) -> str:
    text = message.replace(str(sandbox), "<sandbox>")
    text = _TEMPNAME.sub(r"\1<tempname>", text)
    return _ADDRESS.sub("0x?", text)


Row = tuple[str, str, str]


@dataclass
class Runs:
    """Every runner's results for the same orders of one project."""

    orders: list[list[str]]
    results: dict[str, list[OrderResult]] = field(default_factory=dict)
    sandboxes: dict[str, Path] = field(default_factory=dict)
    notices: dict[str, list[str]] = field(default_factory=dict)
    runner_used: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def rows(self, runner: str, i: int) -> list[Row]:
        """(test, outcome, normalised message) for each position of order ``i``."""
        sandbox = self.sandboxes[runner]
        return [
            (r.test, r.outcome.value, normalise(r.message, sandbox))
            for r in self.results[runner][i].results
        ]

    def disagreements(self) -> list[str]:
        """One readable paragraph per order where a runner differs from the reference."""
        out = []
        for i, order in enumerate(self.orders):
            reference = self.rows(REFERENCE, i)
            for runner in RUNNER_NAMES:
                if runner == REFERENCE:
                    continue
                rows = self.rows(runner, i)
                if rows == reference:
                    continue
                lines = [f"order {i} {order}: {runner} differs from {REFERENCE}"]
                for position, (mine, theirs) in enumerate(zip(rows, reference)):
                    if mine != theirs:
                        lines.append(
                            f"  [{position}] {mine[0]}\n"
                            f"      {runner}: {mine[1]} {mine[2]!r}\n"
                            f"      {REFERENCE}: {theirs[1]} {theirs[2]!r}"
                        )
                out.append("\n".join(lines))
        return out

    def outcomes_by_test(self, runner: str = REFERENCE) -> dict[str, set[str]]:
        seen: dict[str, set[str]] = {}
        for result in self.results[runner]:
            for r in result.results:
                seen.setdefault(r.test, set()).add(r.outcome.value)
        return seen

    def varying(self, runner: str = REFERENCE) -> list[str]:
        """Tests whose outcome is not the same in every order."""
        return sorted(t for t, seen in self.outcomes_by_test(runner).items() if len(seen) > 1)


def run_three(
    project: Path,
    workdir: Path,
    orders: Optional[Sequence[Sequence[str]]] = None,
    *,
    env_for: Optional[EnvFor] = None,
    pytest_args: Sequence[str] = (),
    seeds: Sequence[int] = SEEDS,
    alone: bool = True,
    timeout: float = 120.0,
) -> Runs:
    """Run ``orders`` (default: :func:`standard_orders` of the collected suite, with
    ``seeds`` and ``alone``) with each
    runner, one engine (or plain runner) per runner, each in its own sandbox. The fork
    runner goes first; the subprocess and plain runners then run side by side.

    ``env_for(runner)`` gives extra environment variables for that runner's processes.
    """

    def config(runner: str) -> EngineConfig:
        return EngineConfig(
            project,
            runner="fork" if runner == "plain" else runner,
            timeout=timeout,
            pytest_args=tuple(pytest_args),
            workdir=workdir / runner,
            extra_env=env_for(runner) if env_for else {},
        )

    runs = Runs(orders=[])
    started = time.perf_counter()
    notices: list[str] = []
    with Engine(config("fork"), notice=notices.append) as engine:
        if orders is None:
            orders = standard_orders(engine.suite.ids, seeds, alone=alone)
        runs.orders = [list(o) for o in orders]
        runs.results["fork"] = engine.run_many(runs.orders)
        runs.runner_used["fork"] = engine.runner
    runs.notices["fork"] = notices
    runs.sandboxes["fork"] = workdir / "fork" / "w0"
    runs.seconds["fork"] = time.perf_counter() - started

    def subprocess_runner() -> None:
        started = time.perf_counter()
        with Engine(config("subprocess")) as engine:
            runs.results["subprocess"] = engine.run_many(runs.orders)
            runs.runner_used["subprocess"] = engine.runner
        runs.sandboxes["subprocess"] = workdir / "subprocess" / "w0"
        runs.seconds["subprocess"] = time.perf_counter() - started

    def plain_runner() -> None:
        started = time.perf_counter()
        plain = PlainRunner(config("plain"), workdir / "plain")
        try:
            runs.results["plain"] = [plain.run(order) for order in runs.orders]
        finally:
            plain.close()
        runs.runner_used["plain"] = "plain"
        runs.sandboxes["plain"] = workdir / "plain"
        runs.seconds["plain"] = time.perf_counter() - started

    # One fresh pytest process per order for both: run them side by side.
    with ThreadPoolExecutor(2) as pool:
        for done in [pool.submit(subprocess_runner), pool.submit(plain_runner)]:
            done.result()
    return runs


def assert_same_everywhere(runs: Runs) -> None:
    """Every runner gave every order the same outcomes, and some test's outcome depends
    on the order (else the comparison proves nothing)."""
    differences = runs.disagreements()
    assert not differences, "\n\n".join(differences)
    varying = runs.varying()
    assert varying, "no test's outcome depends on the order: this comparison proves nothing"
