"""Set-ups verified for many brittles at once (:mod:`orderdep.analysis.repair.batch`), with
the moving of set-ups and the verifier replaced: what is verified, and what each result
keeps for the check of the patch set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orderdep.analysis.repair import batch
from orderdep.analysis.repair.batch import Ahead, setups_for_many
from orderdep.analysis.repair.fix_result import Fix
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.core.report import ODFinding

SETTER = "tests/test_api.py::test_connect"
OTHER = "tests/test_api.py::test_other"


class _Verifier:
    def __init__(self) -> None:
        self.calls: list[tuple[Target, list[Target]]] = []

    def verify(self, changes: Any, target: Target, also: Any = (), keep_going: bool = False
               ) -> Verification:  # fmt: skip
        self.calls.append((target, list(also)))
        return Verification(True, orders_run=3)


class _Repairer:
    def __init__(self, project: Path) -> None:
        self.project = project
        self.verifier = _Verifier()


def _brittle(name: str) -> ODFinding:
    return ODFinding(
        f"tests/test_api.py::{name}", "brittle", state_setters=[SETTER, OTHER],
        failing_order=[f"tests/test_api.py::{name}"],
        passing_order=[SETTER, f"tests/test_api.py::{name}"],
    )  # fmt: skip


def _fix(test: str) -> Fix:
    return Fix(test, "generated", "sets up", [], {}, Verification(True))


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "moved_setups", lambda other, done, project: [_fix(other.test)])
    monkeypatch.setattr(batch, "merged_changes", lambda project, insertions: {})


@pytest.mark.usefixtures("moved")
def test_batched_results_keep_every_passing_order_for_the_set_check(tmp_path: Path) -> None:
    first, *later = (_brittle(n) for n in ("test_a", "test_b", "test_c"))
    repairer = _Repairer(tmp_path)
    ahead = Ahead()
    out = setups_for_many(repairer, first, _fix(first.test), later, lambda line: None, ahead)  # type: ignore[arg-type]
    assert sorted(out) == [b.test for b in later]
    ((target, also),) = repairer.verifier.calls
    # verified in one go with one passing order each ...
    assert [len(t.passing_orders) for t in (target, *also)] == [1, 1]
    for b in later:
        result = out[b.test]
        assert result.batched and result.fix is not None
        assert result.target is not None
        # ... but each result keeps all of them: its setters, its recorded passing order
        assert [SETTER, b.test] in result.target.passing_orders
        assert [OTHER, b.test] in result.target.passing_orders
        assert len(result.target.passing_orders) > 1
    assert ahead.tried  # the group is not tried again
    again = setups_for_many(repairer, first, _fix(first.test), later, lambda line: None, ahead)  # type: ignore[arg-type]
    assert again == {} and len(repairer.verifier.calls) == 1


@pytest.mark.usefixtures("moved")
def test_one_other_brittle_is_not_batched(tmp_path: Path) -> None:
    first, other = _brittle("test_a"), _brittle("test_b")
    repairer = _Repairer(tmp_path)
    assert setups_for_many(repairer, first, _fix(first.test), [other], lambda line: None) == {}  # type: ignore[arg-type]
    assert repairer.verifier.calls == []
