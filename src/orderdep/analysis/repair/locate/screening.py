"""Screening: run candidate statements right before the OD test on the unpatched project.

A candidate patch is costly to verify (a patched copy, every failing and passing order,
the whole suite). Screening first executes its statements through the debug probe right
before the OD test in its failing orders, on the project as it is, and keeps only those
that make the test pass there. Answers are cached: the ddmin searches ask the same
question more than once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Protocol

from orderdep.analysis.repair.locate.debugger import PROBE_MODULE
from orderdep.analysis.repair.verify.verify import Target
from orderdep.engine.executor import Executor
from orderdep.engine.probe import ProbeSpec

ScreenKey = tuple[str, Optional[str], str, tuple[str, ...], tuple[tuple[str, ...], ...], bool]


class Screen(Protocol):
    """``screen(target, code, namespace, fixtures, call=...)``: whether ``code`` makes
    the OD test pass in its failing orders (see :class:`Screener`)."""

    def __call__(
        self,
        target: Target,
        code: str,
        namespace: Optional[str],
        fixtures: Sequence[str] = (),
        call: bool = False,
    ) -> bool: ...


class Screener:
    """Whether statements make an OD test pass in its failing orders (one run per order)."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.runs = 0
        self._answers: dict[ScreenKey, bool] = {}

    def __call__(
        self,
        target: Target,
        code: str,
        namespace: Optional[str],
        fixtures: Sequence[str] = (),
        call: bool = False,
    ) -> bool:
        """Whether ``code`` run in ``namespace`` makes the OD test pass in its failing orders:
        before the test's set-up, or, with ``fixtures`` (their values bound) or ``call``,
        in its call phase, where statements inserted at the start of its body run."""
        orders = tuple(tuple(order) for order in target.failing_orders)
        key = (code, namespace, target.test, tuple(fixtures), orders, call or bool(fixtures))
        if key not in self._answers:
            self._answers[key] = self._screen(target, code, namespace, fixtures, call)
        return self._answers[key]

    def _screen(
        self,
        target: Target,
        code: str,
        namespace: Optional[str],
        fixtures: Sequence[str],
        call: bool,
    ) -> bool:
        for order in target.failing_orders:
            options: dict[str, object] = {
                "mode": "exec", "at": len(order) - 1, "code": code, "namespace": namespace
            }  # fmt: skip
            if fixtures or call:
                options.update(phase="call", fixtures=list(fixtures))
            self.runs += 1
            res = self.executor.run(order, probe=ProbeSpec(PROBE_MODULE, options))
            if res.probe.get("error") or res.probe.get("exec_error"):
                return False
            if res.outcome_of(target.test).is_failure:
                return False
        return True
