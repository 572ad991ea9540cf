"""The fork runner's run of the original order stops once its pace shows it cannot end
within the check's share (:func:`orderdep.analysis.fork_pair.out_of_pace`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.test_fidelity_partial import checked_on_a_clock
from tests.engine.conftest import write_files

from orderdep.analysis import fork_trust
from orderdep.analysis.budget import Budget
from orderdep.analysis.fork_pair import out_of_pace, paced_out
from orderdep.analysis.fork_part import filled_notice, part_filled
from orderdep.engine.testclock import Progress


def test_a_run_is_out_of_pace_once_its_projected_end_is_past_its_share() -> None:
    share = Budget(60.0)
    assert out_of_pace(Progress(100, 30.0), 300, share)  # 90 s at that pace
    assert not out_of_pace(Progress(100, 30.0), 150, share)  # 45 s
    assert not out_of_pace(Progress(10, 19.0), 300, share)  # too early to tell: a third is 20 s
    assert not out_of_pace(Progress(0, 50.0), 300, share)  # no test ended yet
    assert not out_of_pace(None, 300, share)  # no order running
    assert not out_of_pace(Progress(100, 30.0), 300, Budget(None))  # no share to end within
    said = paced_out(Progress(100, 30.0), 300, share)
    assert said == (
        "orderdep: checking the fork runner: its run of the original order ended 100 of "
        "the 300 tests in 30 s; at that pace it cannot end within its share of the "
        "budget (60 s), so it stops there"
    )


def test_a_run_stops_once_it_reached_all_a_search_of_a_part_can_cover() -> None:
    # 300 tests, 100 ended in 10 s: the whole order takes 30 s; the 20 s of it to come and
    # a fresh pytest of it take 50 s, more than the 40 s left.
    assert part_filled(Progress(100, 10.0), 300, 40.0)  # 10 s reached, a quarter of 40
    assert not part_filled(Progress(50, 5.0), 300, 45.0)  # 5 s reached, a quarter of 45 is 11.25
    assert not part_filled(Progress(100, 10.0), 300, 60.0)  # 50 s fit the 60 s left
    assert not part_filled(Progress(300, 30.0), 300, 10.0)  # it ended
    assert not part_filled(Progress(1, 30.0), 300, 10.0)  # too few tests for a part
    assert not part_filled(None, 300, 10.0)  # no order running
    # the seconds its tests took count, not the start-up and collection before them
    assert not part_filled(Progress(100, 10.0, 4.0), 300, 40.0)  # all take 12 s: they fit
    assert not part_filled(Progress(100, 14.0, 9.0), 300, 40.0)  # 9 s, a quarter of 40 is 10
    assert part_filled(Progress(100, 16.0, 10.0), 300, 40.0)
    assert not part_filled(Progress(100, 30.0), 300, None)  # no budget
    said = filled_notice(Progress(120, 12.0), 300)
    assert said == (
        "orderdep: checking the fork runner: its run of the original order ended 120 of "
        "the 300 tests in 12 s; at that pace the budget cannot search the whole order, and "
        "the tests it reached are as many as a search can cover, so it stops there"
    )


@pytest.mark.slow
def test_detect_s_check_stops_a_run_once_it_reached_the_part_it_can_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """52 tests of a quarter of a second under a budget of 24 s: the fork runner's share
    (14.4 s) holds them (about 13 s), so its pace never stops it; but they and a fresh
    pytest of them take more than the budget. The run stops once the tests it reached take
    a quarter of what is left (about 5 s), and the search covers those. (The check's
    share for that fresh pytest is raised to half the budget: a fifth of 24 s holds no
    fresh pytest's start-up.)"""
    monkeypatch.setattr(fork_trust, "CHECK_SHARE", 0.5)
    body = "import time\n\n" + "\n\n".join(
        f"def test_{i}():\n    time.sleep(0.25)\n" for i in range(52)
    )
    project = write_files(tmp_path / "p", {"tests/test_slow.py": body})
    never = tmp_path / "no-such-mark"
    got = checked_on_a_clock(project, never, 0.0, 24.0, monkeypatch, confirms_fresh=True,
                             ticking=True)  # fmt: skip
    assert any("as many as a search can cover, so it stops there" in n for n in got.notices)
    assert not any("at that pace it cannot end within its share" in n for n in got.notices)
    assert got.part is not None and 2 <= len(got.part) < 40, got.notices
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork"


@pytest.mark.slow
def test_detect_s_check_stops_a_run_that_cannot_end_and_searches_what_it_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 tests of half a second under a budget of 20 s: the fork runner's share (12 s)
    cannot hold them, and its pace says so after a third of it; the part it reached is
    checked against a fresh pytest and searched."""
    body = "import time\n\n" + "\n\n".join(
        f"def test_{i}():\n    time.sleep(0.5)\n" for i in range(40)
    )
    project = write_files(tmp_path / "p", {"tests/test_slow.py": body})
    never = tmp_path / "no-such-mark"
    got = checked_on_a_clock(project, never, 0.0, 20.0, monkeypatch, confirms_fresh=True)
    paced = [n for n in got.notices if "at that pace it cannot end within its share" in n]
    assert paced, got.notices
    assert got.part is not None and 2 <= len(got.part) < 40
    assert got.report is not None and got.report.faithful, got.notices
    assert got.runner == "fork"
