"""Checking that the fork runner behaves like a fresh ``python -m pytest`` on a project.

:func:`check` runs a sample of orders (see :func:`orderdep.core.fidelity.sample_orders`)
under the fork runner, the subprocess runner and plain pytest, and lists every position
where they disagree. :func:`~orderdep.analysis.fork_trust.trust_fork` is the cheap
version the analysing commands run before they rely on the fork runner for a project;
its verdicts are kept here (:class:`VerdictCache`), per :func:`config_key`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

from orderdep import __version__
from orderdep.analysis.fidelity_sample import RunOrder, run_sample
from orderdep.core.fidelity import FidelityReport, SampleOrder, sample_orders
from orderdep.core.volatile import shown_ids
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.runner import Engine
from orderdep.engine.store import code_key
from orderdep.engine.tempdirs import make_workdir

Progress = Callable[[str], None]
CACHE_NAME = "fidelity.json"


def runners_key() -> str:
    """This orderdep's engine, as files: a verdict on the runners of another version
    (one that fixed a difference, say) says nothing about these."""
    engine = Path(__file__).resolve().parent.parent / "engine"
    stamps = []
    for path in sorted(engine.glob("*.py")):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps.append([path.name, stat.st_size, stat.st_mtime_ns])
    return hashlib.sha1(json.dumps([__version__, stamps]).encode()).hexdigest()[:12]


def config_key(config: EngineConfig) -> str:
    """The code version, orderdep's runners and every setting that changes what a test
    process sees."""
    data = [
        code_key(config.project),
        runners_key(),
        config.python,
        config.rootdir,
        list(config.pythonpath),
        list(config.pytest_args),
        config.home,
    ]
    return hashlib.sha1(json.dumps(data).encode()).hexdigest()[:16]


class VerdictCache:
    """Verdicts by :func:`config_key`, in a JSON file beside the results store."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Optional[FidelityReport]:
        entry = self._read().get(key)
        if not isinstance(entry, dict):
            return None
        try:
            return FidelityReport.from_json(entry)
        except (KeyError, IndexError, TypeError, ValueError):  # a damaged entry: check again
            return None

    def put(self, key: str, report: FidelityReport) -> None:
        data = self._read()
        data[key] = report.to_json()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
            tmp.replace(self.path)
        except OSError:
            pass  # a verdict that cannot be cached is checked again next time


def check(
    config: EngineConfig,
    *,
    seed: int,
    budget: Optional[float] = None,
    random_orders: int = 5,
    singles: int = 20,
    side_by_side: int = 1,
    progress: Optional[Progress] = None,
    on_plan: Optional[Callable[[Sequence[SampleOrder], Sequence[str]], None]] = None,
    on_order: Optional[Callable[[FidelityReport], None]] = None,
) -> FidelityReport:
    """Compare the fork and subprocess runners with plain pytest on a sample of orders.

    The sample is a function of the collected suite, ``seed``, ``random_orders`` and
    ``singles``: the same arguments draw the same sample. ``on_plan`` is told the sample
    and the runners once the suite is collected, before any order runs; ``on_order`` sees
    the report after each order (see :func:`run_sample`). ``side_by_side``: how many of
    the runners run an order at once (1: one after the other).
    """
    deadline = None if budget is None else time.monotonic() + budget
    fork_config = replace(config, runner="fork", jobs=1)
    sub_config = replace(config, runner="subprocess", jobs=1)
    with (
        make_workdir() as tmp,
        # the fork engine's notices (a refused fork, where the project's code comes
        # from) are the check's too; the subprocess engine's would repeat them
        Engine(fork_config, notice=progress) as fork,
        Engine(sub_config) as sub,
    ):
        plain = PlainRunner(config, Path(tmp) / "plain")
        # One set of learned time limits: a hang costs its first-run limit once.
        sub.timeouts = plain.policy = fork.timeouts
        try:
            ids = fork.suite.ids
            # Orders are named by the fork runner's ids; fresh processes may collect some
            # under other ids (volatile parametrize ids) and find them by alignment.
            sub.id_notices.notice = progress or (lambda message: None)
            sub.adopt(fork.suite)
            plain.set_reference(ids)
            left_out = list(sub.id_notices.missing)
            if left_out and progress is not None:
                progress(f"left out of every order: {shown_ids(left_out)}")
            kept = [t for t in ids if t not in set(left_out)]
            samples = sample_orders(kept, seed=seed, random_orders=random_orders, singles=singles)
            runners: dict[str, RunOrder] = {
                fork.runner: lambda o: fork.run(o),  # "prefork" where threads forbid "fork"
                "subprocess": lambda o: sub.run(o),
                "plain": plain.run,
            }
            # it could not fork at all: nothing of its own to compare
            if on_plan is not None:
                on_plan(samples, list(runners))
            report = run_sample(
                samples, runners, deadline=deadline, progress=progress, on_order=on_order,
                side_by_side=side_by_side, stoppers=(fork, sub, plain),
            )  # fmt: skip
            report.volatile = list(sub.id_notices.renamed)
            report.left_out = left_out
            return report
        finally:
            plain.close()
