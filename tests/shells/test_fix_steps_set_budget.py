"""The set check of ``fix`` when the budget ends before it finishes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.errors import OutOfTime
from orderdep.shells.commands import fix_steps


def _result(test: str) -> FixResult:
    fix = Fix(test, "polluter", "undo it", cast(Any, [test]), {}, Verification(ok=True))
    return FixResult(test, "victim", fix=fix, target=Target(test, [[test]], []))


def _out_of_time(*args: object, **kwargs: object) -> Any:
    raise OutOfTime("the budget ended: no more orders are started")


def _repairer(*, suite_in_set: bool) -> Any:
    return SimpleNamespace(verifier=SimpleNamespace(suite_in_set=suite_in_set))


@pytest.mark.parametrize("count", [1, 2])
def test_the_only_patch_is_kept_when_the_budget_ends_in_its_set_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], count: int
) -> None:
    """One patch was already run in the original order and its own orders: the random
    orders the budget left out are said, not a reason to drop it. Two were never run
    together: neither is applied."""
    monkeypatch.setattr(fix_steps, "holding_set", _out_of_time)
    monkeypatch.setattr(fix_steps, "merged_changes", lambda p, ins: {"t.py": ("a", "b")})
    fixed = [_result(f"t.py::test_{i}") for i in range(count)]
    by_function = {r.test: r for r in fixed}
    kept, changes, left_out = fix_steps.check_set(
        _repairer(suite_in_set=False),
        tmp_path,
        fixed,
        by_function,
        seed=0,
        orders=20,
        unrepaired=None,
    )
    out = capsys.readouterr().out
    if count == 1:
        assert kept == ["t.py::test_0"] and changes == {"t.py": ("a", "b")} and left_out == {}
        assert "one patch, verified alone" in out and "a larger --budget runs them" in out
    else:
        assert kept == [] and set(left_out) == set(by_function)
        assert "none is applied" in out


def test_no_patch_is_applied_when_the_budget_ends_before_the_suite_ran_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite slow for the budget runs only in the set check: a patch verified in its
    own orders only, which the budget kept from the whole suite, is not applied."""
    monkeypatch.setattr(fix_steps, "holding_set", _out_of_time)
    monkeypatch.setattr(fix_steps, "merged_changes", lambda p, ins: {"t.py": ("a", "b")})
    fixed = [_result("t.py::test_0")]
    kept, changes, left_out = fix_steps.check_set(
        _repairer(suite_in_set=True), tmp_path, fixed, {fixed[0].test: fixed[0]}, seed=0,
        orders=0, unrepaired=None,
    )  # fmt: skip
    out = capsys.readouterr().out
    assert (
        kept == []
        and changes == {}
        and left_out == {"t.py::test_0": "not checked on the whole suite (the budget ended)"}
    )
    assert "none is applied" in out and "verified in its own orders only" in out
