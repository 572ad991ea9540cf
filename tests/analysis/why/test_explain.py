"""``why``'s explanation step: the Debugger and the Repairer, each run at most once."""

from __future__ import annotations

from typing import Any

import pytest

from orderdep.analysis.repair import fix as fix_module
from orderdep.analysis.repair.fix_result import FixResult
from orderdep.analysis.why import explain as explain_module
from orderdep.analysis.why.search import WhyResult

V, P = "tests/test_a.py::test_victim", "tests/test_a.py::test_polluter"


class _Engine:
    config: Any = None


def test_a_failure_the_repairer_no_longer_reproduces_is_not_debugged_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Repairer:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def repair(self, finding: object) -> FixResult:
            return FixResult(
                V, "victim", notes=["it passes in its failing order"], reproduced=False
            )

    debugged: list[str] = []
    monkeypatch.setattr(fix_module, "Repairer", Repairer)
    monkeypatch.setattr(explain_module, "debug", lambda *a, **k: debugged.append("again"))
    result = WhyResult(V, [P, V], "victim", "fork", [P], [P, V], [V])
    out = explain_module.explain(_Engine(), result)  # type: ignore[arg-type]
    assert out.fix is not None and out.fix.reproduced is False
    assert debugged == [] and out.debug is None
