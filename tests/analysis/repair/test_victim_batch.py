"""A victim's root-cause fix verified for the later victims of its polluters at once
(:mod:`orderdep.analysis.repair.victim_batch`): with the verifier replaced, what is
verified together and what each result keeps; then ``fix --apply`` on a project whose
four victims share one polluter, under plain pytest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.analysis.repair.corpus_helpers import fix_and_apply, plain_outcomes

from orderdep.analysis.repair.batch import Ahead
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.analysis.repair.victim_batch import fixes_for_victims, sharers, short_target
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding

POLLUTER = "tests/test_admin.py::test_sets"


class _Verifier:
    def __init__(self, failing: tuple[str, ...] = ()) -> None:
        self.calls: list[list[str]] = []
        self.failing = failing  # victims the patch does not repair

    def verify(self, changes: Any, target: Target, also: Any = (), keep_going: bool = False
               ) -> Verification:  # fmt: skip
        tests = [t.test for t in (target, *also)]
        self.calls.append(tests)
        left = [t for t in tests if t in self.failing]
        return Verification(not left, problems=[f"{t} still fails" for t in left],
                            orders_run=2 * len(tests), still_failing=left)  # fmt: skip


class _Repairer:
    def __init__(self, project: Path, failing: tuple[str, ...] = ()) -> None:
        self.project = project
        self.verifier = _Verifier(failing)


def _victim(name: str, polluter: str = POLLUTER) -> ODFinding:
    test = f"tests/test_pages.py::{name}"
    return ODFinding(
        test, "victim", polluters=[polluter], failing_order=[polluter, test], passing_order=[test]
    )


def _polluter_fix(victim: str) -> Fix:
    said = "Undo this test's change to shop.SETTINGS when it ends (test_a needs it)."
    ins = Insertion(POLLUTER, ("monkeypatch.setitem(shop.SETTINGS, 'size', 3)",),
                    ("monkeypatch",), comment=said)  # fmt: skip
    return Fix(victim, "polluter", "the polluter restores shop.SETTINGS", [ins], {},
               Verification(True))  # fmt: skip


def test_later_victims_of_the_polluter_are_verified_in_one_check(tmp_path: Path) -> None:
    first, b, c, d = (_victim(n) for n in ("test_a", "test_b", "test_c", "test_d"))
    stranger = _victim("test_e", polluter="tests/test_other.py::test_other")
    repairer, ahead = _Repairer(tmp_path), Ahead()
    fix = _polluter_fix(first.test)
    ready = fixes_for_victims(repairer, first, fix, [b, stranger, c, d], lambda s: None, ahead)  # type: ignore[arg-type]
    assert repairer.verifier.calls == [[b.test, c.test, d.test]]
    assert sorted(ready) == [b.test, c.test, d.test]
    mine = ready[c.test].fix
    assert mine is not None and mine.test == c.test
    assert (
        mine.insertions[0].comment is not None and "(test_c needs it)" in mine.insertions[0].comment
    )
    assert ready[c.test].batched and ahead.written[c.test] is fix
    # the same patch is not tried again for these victims
    assert fixes_for_victims(repairer, first, fix, [b, c, d], lambda s: None, ahead) == {}  # type: ignore[arg-type]
    assert len(repairer.verifier.calls) == 1


def test_a_reset_at_the_victim_is_copied_to_the_victims_of_its_class_and_checked_at_once(
    tmp_path: Path,
) -> None:
    source = "class TestPages:\n" + "".join(
        f"    def test_{n}(self, cr):\n        pass\n\n" for n in "abcd"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_pages.py").write_text(source)
    first, b, c = (_victim(f"TestPages::test_{n}") for n in "abc")
    other_file = ODFinding("tests/test_more.py::test_d", "victim", polluters=[POLLUTER],
                           failing_order=[POLLUTER, "tests/test_more.py::test_d"])  # fmt: skip
    reset = Insertion(first.test, ("cr._configure_columns()",), ("cr",))
    fix = Fix(first.test, "generated", "calls cr._configure_columns()", [reset], {},
              Verification(True))  # fmt: skip
    assert sharers(first, fix, [b, c, other_file]) == [b, c]
    repairer, ahead = _Repairer(tmp_path), Ahead()
    ready = fixes_for_victims(repairer, first, fix, [b, other_file, c], lambda s: None, ahead)  # type: ignore[arg-type]
    assert repairer.verifier.calls == [[b.test, c.test]]
    mine = ready[c.test].fix
    assert mine is not None and [i.test for i in mine.insertions] == [c.test]
    assert (
        "    def test_c(self, cr):\n        cr._configure_columns()"
        in next(iter(mine.changes.values()))[1]
    )
    assert not ahead.written  # each copy is written in its own turn


def test_a_victim_the_patch_leaves_failing_is_dropped_and_the_rest_verified_again(
    tmp_path: Path,
) -> None:
    first, b, c, d = (_victim(n) for n in ("test_a", "test_b", "test_c", "test_d"))
    repairer = _Repairer(tmp_path, failing=(c.test,))
    ready = fixes_for_victims(repairer, first, _polluter_fix(first.test), [b, c, d], lambda s: None)  # type: ignore[arg-type]
    assert repairer.verifier.calls == [[b.test, c.test, d.test], [b.test, d.test]]
    assert sorted(ready) == [b.test, d.test]


def test_the_batch_checks_each_victim_after_its_polluters_and_alone() -> None:
    long = [f"tests/test_x.py::test_{i}" for i in range(50)]
    victim = _victim("test_b")
    victim.polluter_groups = [["tests/test_g.py::test_one", "tests/test_g.py::test_two"]]
    full = Target(victim.test, [[*long, victim.test], [POLLUTER, victim.test]], [long])
    short = short_target(victim, full)
    assert short.failing_orders == [
        [POLLUTER, victim.test],
        [*victim.polluter_groups[0], victim.test],
    ]
    assert short.passing_orders == [[victim.test]]
    unknown = ODFinding(victim.test, "victim")
    assert short_target(unknown, full).failing_orders == full.failing_orders


def test_a_change_in_the_victims_set_up_or_another_class_is_not_shared(tmp_path: Path) -> None:
    first, b, c = (_victim(n) for n in ("test_a", "test_b", "test_c"))
    in_set_up = Fix(first.test, "cleaner", "d", [Insertion(first.test, ("x = 1",), method="setUp")],
                    {}, Verification(True))  # fmt: skip
    assert sharers(first, in_set_up, [b, c]) == []
    at_start = Fix(first.test, "cleaner", "d", [Insertion(first.test, ("x = 1",))], {},
                   Verification(True))  # fmt: skip
    elsewhere = _victim("TestOther::test_d")  # the statements may name its class's self
    assert sharers(first, at_start, [b, elsewhere, c]) == [b, c]


PAGES = "tests/test_pages.py::"
ADMIN = "tests/test_shop_admin.py::test_admin_shows_more_per_page"


@pytest.mark.slow
def test_fix_apply_debugs_one_victim_of_a_polluter_and_verifies_the_rest_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, output, progress = fix_and_apply("victims_one_settings", tmp_path, monkeypatch)
    assert progress.count(".. debugging ") == 1, progress
    assert "for 6 other victim(s) at once" in progress, progress
    said = f"(the patch of {PAGES}test_first_page, checked for this test and 5 other victim(s) at once)"
    assert output.count(said) == 6, output
    # an instance of a parametrized function takes it too, not its sibling's patch again
    assert progress.count("verifying the patch of") == 1, progress
    fixes = json.loads((root / ".orderdep/fixes.json").read_text("utf-8"))["fixes"]
    assert len(fixes) == 7 and len({e["description"] for e in fixes.values()}) == 1, fixes
    admin = (root / "tests/test_shop_admin.py").read_text("utf-8")
    assert admin.count("monkeypatch.setitem(shop.SETTINGS") == 1, admin
    victims = ("first_page", "second_page", "page_count", "last_page_is_short", "full_pages[2]")
    orders = [[ADMIN, *(PAGES + "test_" + v for v in victims)]]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


def test_a_batch_the_time_stops_says_so_and_leaves_each_victim_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from orderdep.errors import OutOfTime
    from orderdep.shells.commands import fix_ahead

    def stopped(*args: Any) -> Any:
        raise OutOfTime("share")

    monkeypatch.setattr(fix_ahead, "fixes_for_victims", stopped)
    first, b, c = (_victim(n) for n in ("test_a", "test_b", "test_c"))
    result = FixResult(first.test, "victim", fix=_polluter_fix(first.test))
    ahead = Ahead()
    fix_ahead.victims_ahead(_Repairer(tmp_path), first, result, [b, c], ahead, 5.0, 100.0)  # type: ignore[arg-type]
    assert ahead.ready == {}
    assert "the check of 2 victim(s) at once did not end within 15 s" in capsys.readouterr().err
