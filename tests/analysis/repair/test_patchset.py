"""Merging the fixes of several OD tests into one patch set."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from orderdep.analysis.repair.verify.patchset import (
    distinct,
    joined_comment,
    merged_changes,
    merged_comment,
)
from orderdep.analysis.repair.verify.verify import Verification
from orderdep.analysis.repair.write.patches import Insertion

GUARD = ("saved = copy.deepcopy(data.rows)", "request.addfinalizer(lambda: None)")


def test_the_same_guard_for_two_victims_is_inserted_once(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_p():\n    pass\n")
    first = Insertion("tests/test_a.py::test_p", GUARD, ("request",), comment="For test_v1.")
    second = Insertion("tests/test_a.py::test_p", GUARD, ("request",), comment="For test_v2.")
    other = Insertion("tests/test_a.py::test_p", ("x = 1",), comment="For test_v3.")
    (one,) = distinct([first, second, other, first])  # one place: one block
    assert one.statements == (*GUARD, "x = 1") and one.fixtures == ("request",)
    assert one.comment == "For test_v1 and test_v2. For test_v3."
    (text,) = [new for _, new in merged_changes(tmp_path, [first, second, other]).values()]
    assert text.count("saved = copy.deepcopy(data.rows)") == 1
    assert "# For test_v1 and test_v2. For test_v3." in text  # it names every test it fixes


def test_guards_for_one_testcase_method_share_one_monkeypatch(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    source = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_p(self):\n        pass\n"
    )
    (tmp_path / "tests" / "test_t.py").write_text(source)
    guards = [
        Insertion("tests/test_t.py::T::test_p", (f"monkeypatch.setenv('{v}', 'x')",),
                  ("monkeypatch",), comment=f"Undo this test's change to ${v}.")
        for v in ("A", "B", "A")
    ]  # fmt: skip
    (text,) = [new for _, new in merged_changes(tmp_path, guards).values()]
    assert text.count("monkeypatch = pytest.MonkeyPatch()") == 1, text
    assert text.count("monkeypatch.setenv('A', 'x')") == 1
    assert "monkeypatch.setenv('B', 'x')" in text


def test_the_largest_set_that_holds_is_kept_and_each_conflict_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Patches a and c hold alone but not together: the set keeps a and b, leaves c out
    with the problem seen, and never drops b for c's conflict."""
    from orderdep.analysis.repair.verify import patchset

    tried: list[list[str]] = []

    def fake_changes(project: Path, insertions: list[Any]) -> dict[str, tuple[str, str]]:
        return {str(i): ("", "") for i in insertions}

    def fake_verify(verifier: Any, changes: Any, targets: Any, **options: Any) -> Verification:
        chosen = sorted(changes)
        tried.append(chosen)
        ok = not {"a", "c"} <= set(chosen)
        problems = [] if ok else ["t::victim_of_a failed in random order 3 (seed 0)"]
        return Verification(ok=ok, problems=problems, orders_run=22)

    monkeypatch.setattr(patchset, "merged_changes", fake_changes)
    monkeypatch.setattr(patchset, "verify_set", fake_verify)
    targets: dict[str, list[Any]] = {"a": [], "b": [], "c": []}
    found = patchset.holding_set(
        cast(Any, None),
        tmp_path,
        {"a": ["a"], "b": ["b"], "c": ["c"]},
        targets,  # type: ignore[dict-item]
    )
    assert found.kept == ["a", "b"]
    assert found.left_out == {"c": "t::victim_of_a failed in random order 3 (seed 0)"}
    assert tried == [["a", "b", "c"], ["a"], ["a", "b"], ["a", "b", "c"]]
    assert found.orders_run == 4 * 22
    assert sorted(found.changes) == ["a", "b"]


def test_a_set_that_holds_whole_is_verified_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.analysis.repair.verify import patchset

    calls: list[int] = []
    monkeypatch.setattr(patchset, "merged_changes", lambda p, ins: {str(i): ("", "") for i in ins})
    monkeypatch.setattr(
        patchset,
        "verify_set",
        lambda *a, **k: calls.append(1) or Verification(ok=True, orders_run=5),
    )
    found = patchset.holding_set(
        cast(Any, None),
        tmp_path,
        {"a": ["a"], "b": ["b"]},
        {"a": [], "b": []},  # type: ignore[dict-item]
    )
    assert found.kept == ["a", "b"] and found.left_out == {} and calls == [1]


def test_one_guard_for_several_victims_names_every_one_in_its_comment() -> None:
    said = "Undo this test's change to shop._DISCOUNTS when it ends ({} needs it)."
    guards = [
        Insertion("tests/test_a.py::test_polluter", ("shop._DISCOUNTS.clear()",),
                  comment=said.format(victim))
        for victim in ("test_list_price", "test_total", "test_list_price", "test_third")
    ]  # fmt: skip
    (kept,) = distinct(guards)
    assert kept.comment == (
        "Undo this test's change to shop._DISCOUNTS when it ends (test_list_price, "
        "test_total and test_third need it)."
    )


def test_comments_that_differ_in_more_than_the_test_keep_the_first() -> None:
    assert merged_comment(["Put A back: test_a fails.", "Reset B first: test_b fails."]) == (
        "Put A back: test_a fails."
    )
    assert merged_comment(["X: test_a fails after it.", "X: test_b fails after it."]) == (
        "X: test_a and test_b fail after it."
    )


class _FakeEngine:
    """Runs every order with all tests passing, until the budget ends at run ``stop``."""

    def __init__(self, suite: list[str], stop: int) -> None:
        self.suite = type("S", (), {"ids": suite, "id_root": ""})()
        self.stop, self.runs = stop, 0

    def __enter__(self) -> _FakeEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run(self, order: list[str]) -> Any:
        from orderdep.core.outcomes import OrderResult, Outcome, TestResult
        from orderdep.errors import OutOfTime

        self.runs += 1
        if self.runs >= self.stop:
            raise OutOfTime("the budget ended: no more orders are started")
        return OrderResult(list(order), [TestResult(t, Outcome.PASSED) for t in order])


def _fake_verifier(tmp_path: Path, stop: int) -> Any:
    suite = ["t.py::a", "t.py::b", "t.py::v"]
    engine = _FakeEngine(suite, stop)
    verifier = type("V", (), {})()
    verifier.engine = engine
    verifier.config = type("C", (), {"project": tmp_path})()
    verifier.nd_tests = frozenset()
    verifier.unstable = lambda: frozenset()
    verifier.settled = True
    verifier.before = engine.run
    verifier.original_order = lambda: list(verifier.engine.suite.ids)
    verifier.engine_on = lambda copy, compared=(): engine
    verifier.same_suite = lambda e: True
    return verifier


def test_a_set_check_the_budget_cuts_in_its_random_orders_holds_and_says_so(
    tmp_path: Path,
) -> None:
    from orderdep.analysis.repair.verify.patchset import verify_set
    from orderdep.analysis.repair.verify.verify import Target
    from orderdep.errors import OutOfTime

    (tmp_path / "t.py").write_text("")
    target = Target("t.py::v", [["t.py::a", "t.py::v"]], [["t.py::v"]])
    # the baseline run, the original order, the failing order, one random order, then out
    check = verify_set(_fake_verifier(tmp_path, stop=5), {}, [target], random_orders=20)
    assert check.ok and check.orders_run == 3
    assert check.cut == "the budget ended after 1 of 20 random orders"
    # before the original and failing orders held, there is nothing to claim
    with pytest.raises(OutOfTime):
        verify_set(_fake_verifier(tmp_path, stop=3), {}, [target], random_orders=20)


def test_patches_the_budget_leaves_unchecked_are_left_out_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.analysis.repair.verify import patchset
    from orderdep.errors import OutOfTime

    def fake_verify(verifier: Any, changes: Any, targets: Any, **options: Any) -> Verification:
        if len(changes) == 3:
            return Verification(ok=False, problems=["t::c failed in random order 1 (seed 0)"])
        if len(changes) == 2:
            raise OutOfTime("the budget ended: no more orders are started")
        return Verification(ok=True, orders_run=4)

    monkeypatch.setattr(patchset, "merged_changes", lambda p, ins: {str(i): ("", "") for i in ins})
    monkeypatch.setattr(patchset, "verify_set", fake_verify)
    found = patchset.holding_set(
        cast(Any, None), tmp_path, {"a": ["a"], "b": ["b"], "c": ["c"]},
        {"a": [], "b": [], "c": []},  # type: ignore[dict-item]
    )  # fmt: skip
    assert found.kept == ["a"]
    unchecked = "not checked with the others (the budget ended)"
    assert found.left_out == {"b": unchecked, "c": unchecked}


class _RelationEngine(_FakeEngine):
    """``t.py::v`` fails whenever ``t.py::b`` ran before it (a relation the report does
    not name), patched or not (``patch_breaks``: also after ``t.py::c`` when patched)."""

    def __init__(self, suite: list[str], patch_breaks: bool = False) -> None:
        super().__init__(suite, stop=10**6)
        self.patch_breaks = patch_breaks

    def run(self, order: list[str], patched: bool = True) -> Any:
        from orderdep.core.outcomes import OrderResult, Outcome, TestResult

        before = order[: order.index("t.py::v")]
        bad = "t.py::b" in before or (patched and self.patch_breaks and "t.py::c" in before)
        return OrderResult(
            list(order),
            [TestResult(t, Outcome.FAILED if t == "t.py::v" and bad else Outcome.PASSED)
             for t in order],
        )  # fmt: skip


@pytest.mark.parametrize("patch_breaks", [False, True])
def test_a_repaired_test_failing_in_a_random_order_as_it_does_unpatched_is_said_not_blamed(
    tmp_path: Path, patch_breaks: bool
) -> None:
    from orderdep.analysis.repair.verify.patchset import verify_set
    from orderdep.analysis.repair.verify.verify import Target

    (tmp_path / "t.py").write_text("")
    verifier = _fake_verifier(tmp_path, stop=10**6)
    engine = _RelationEngine(["t.py::v", "t.py::a", "t.py::b", "t.py::c"], patch_breaks)
    verifier.engine = engine
    verifier.engine_on = lambda copy, compared=(): engine
    verifier.before = lambda order: engine.run(order, patched=False)
    # the known relation: v after a; its failing order holds patched
    target = Target("t.py::v", [["t.py::a", "t.py::v"]], [["t.py::v"]])
    check = verify_set(verifier, {}, [target], random_orders=10, seed=1)
    if patch_breaks:  # failing where it passes unpatched: the patch's doing
        assert not check.ok and "t.py::v failed in random order" in check.problems[0]
    else:
        assert check.ok, check.problems
        assert list(check.elsewhere) == ["t.py::v"]
        assert "t.py::v failed in random order" in check.elsewhere["t.py::v"]


def test_comments_that_differ_in_more_than_the_tests_are_said_once_each() -> None:
    """Two fixtures merged into one place, for tests of two polluters: the same sentence
    is said once, naming every test (shortened, it would read twice)."""
    said = [
        "Put cssutils.ser back after every test (test_rulesOfType needs it).",
        "Put cssutils.ser back after every test (test_a and test_b need it).",
        "Reset cssutils.log first.",
    ]
    assert joined_comment(said) == (
        "Put cssutils.ser back after every test (test_rulesOfType, test_a and test_b need "
        "it). Reset cssutils.log first."
    )
    assert joined_comment(["Put X back (t1 needs it).", "Put X back (t1 needs it)."]) == (
        "Put X back (t1 needs it)."
    )


def test_an_unset_the_absent_pair_covers_is_written_once() -> None:
    """Two fixtures of one name merge (unset before every test; put back after): the pair
    ``setenv(K, '')``, ``delenv(K)`` unsets K and has monkeypatch put it back, so the
    plain unset before it goes."""
    from orderdep.analysis.repair.verify.patchset import coalesce

    unset = Insertion("tests/conftest.py::_env", (
        "monkeypatch.delenv('DATA_DIR', raising=False)",
        "monkeypatch.delenv('OTHER', raising=False)",
    ), ("monkeypatch",), edit="autouse")  # fmt: skip
    back = Insertion("tests/conftest.py::_env", (
        "monkeypatch.setenv('DATA_DIR', '')", "monkeypatch.delenv('DATA_DIR')",
    ), ("monkeypatch",), edit="autouse")  # fmt: skip
    (merged,) = coalesce([unset, back])
    assert merged.statements == (
        "monkeypatch.delenv('OTHER', raising=False)",  # no pair for it: kept
        "monkeypatch.setenv('DATA_DIR', '')",
        "monkeypatch.delenv('DATA_DIR')",
    )
