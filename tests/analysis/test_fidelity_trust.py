"""The fork check the analysing commands run first (:func:`orderdep.analysis.fork_trust.trust_fork`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from tests.engine.conftest import write_files
from tests.engine.volatile_project import GROW, MOD, VOLATILE, growing, grown, stamp_of

from orderdep.analysis.budget import Budget
from orderdep.analysis.fidelity import VerdictCache, config_key
from orderdep.analysis.fork_trust import trust_fork
from orderdep.core.volatile import volatile_notice
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.engine.store import Store

SUITE = {
    "tests/test_registry.py": """
        import time

        REGISTRY = []

        def test_register():
            time.sleep(0.05)
            REGISTRY.append("x")

        def test_empty():
            assert REGISTRY == []

        def test_slow():
            time.sleep(0.05)
    """,
}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_faithful_check_says_what_it_runs_and_hands_its_original_order_on(
    tmp_path: Path, jobs: int
) -> None:
    """The check announces itself before it runs anything; once fork and pytest agree,
    the original order it ran under the fork runner is what the analysis gets for that
    order (recorded in the store then), not a second run."""
    project = write_files(tmp_path / "p", SUITE)
    notices: list[str] = []
    store = Store(tmp_path / "runs.db")
    with Engine(EngineConfig(project, jobs=jobs), store=store, job="detect") as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "verdicts.json"), notices.append)
        assert report is not None and report.faithful
        assert notices == [
            "orderdep: checking the fork runner against a fresh pytest on the original "
            "order (3 tests; once per code version)",
            "orderdep: checking the fork runner: 1 failing test(s) alone",
        ]
        assert store.job_runs("detect", engine.suite.ids) == []  # the check records nothing
        ran = engine.orders_run

        def no_second_run(*args: object) -> object:
            raise AssertionError("the original order ran again")

        worker = engine._workers[0]
        saved = worker.run
        worker.run = no_second_run  # type: ignore[method-assign]
        got = engine.run(engine.suite.ids)
        worker.run = saved  # type: ignore[method-assign]
        assert [r.outcome.value for r in got.results] == ["passed", "failed", "passed"]
        assert engine.orders_run == ran + 1 and engine.reused == 0
        assert len(store.job_runs("detect", engine.suite.ids)) == 1
        # Offered once: asking again runs the order.
        again = engine.run(engine.suite.ids)
        assert [r.outcome.value for r in again.results] == ["passed", "failed", "passed"]
        assert engine.orders_run == ran + 2
    store.close()


def test_a_cached_verdict_runs_nothing_and_offers_nothing(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", SUITE)
    cache = VerdictCache(tmp_path / "verdicts.json")
    with Engine(EngineConfig(project)) as engine:
        trust_fork(engine, cache, lambda message: None)
    notices: list[str] = []
    with Engine(EngineConfig(project)) as engine:
        report = trust_fork(engine, cache, notices.append)
        assert report is not None and report.faithful and notices == []
        assert engine._offered == {}


def _heartbeats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> list[str]:
    """The lines saying the check is still running, on a test of 1.5 s, with ``jobs``."""
    from orderdep.analysis import fork_pair

    monkeypatch.setattr(fork_pair, "HEARTBEAT", 0.2)
    project = write_files(
        tmp_path / "p",
        {"tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(1.5)\n"},
    )
    notices: list[str] = []
    with Engine(EngineConfig(project, jobs=jobs)) as engine:
        trust_fork(engine, VerdictCache(tmp_path / "verdicts.json"), notices.append)
    return [n for n in notices if "still running" in n]


def test_a_long_check_says_every_so_often_that_it_is_still_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    still = _heartbeats(tmp_path, monkeypatch, jobs=2)
    assert still and still[0].startswith("orderdep: checking the fork runner: ")


def sleeper(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose one test records its process id and then sleeps far longer than
    any test here waits."""
    pids = tmp_path / "pids"
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_sleeps.py": f"""
                import os
                import time

                def test_sleeps():
                    with open({str(pids)!r}, "a") as f:
                        f.write(f"{{os.getpid()}}\\n")
                    time.sleep(600)
            """,
        },
    )
    return project, pids


def running(pids: Path) -> list[int]:
    alive = []
    for pid in map(int, pids.read_text().split()):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        alive.append(pid)
    return alive


def started_both(pids: Path, count: int) -> Callable[[], bool]:
    return lambda: pids.exists() and len(pids.read_text().split()) >= count


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_check_that_outlasts_its_share_of_the_budget_is_stopped_and_caches_nothing(
    tmp_path: Path, jobs: int
) -> None:
    """The check may use a share of the command's budget (ORIGINAL_SHARE), never the
    search's: at the end of its share the runs are killed, nothing is cached or offered,
    the engine uses the subprocess runner (fresh processes need no check), the rest of
    the budget is left for the search, and the user is told what to do."""
    project, pids = sleeper(tmp_path)
    cache = VerdictCache(tmp_path / "verdicts.json")
    notices: list[str] = []
    began: list[float] = []

    def clock() -> float:
        """The budget's 10 s start once the sleeping test runs, however loaded the machine."""
        if not began and started_both(pids, 1)():
            began.append(time.monotonic())
        return time.monotonic() - began[0] if began else 0.0

    with Engine(EngineConfig(project, jobs=jobs)) as engine:
        budget = Budget(10.0, clock=clock)
        assert trust_fork(engine, cache, notices.append, budget) is None
        assert budget.stop_reason is None and not budget.stopped
        assert engine.runner == "subprocess"
        assert engine._offered == {}
        assert cache.get(config_key(engine.config)) is None
    assert pids.read_text().split() and running(pids) == []
    assert notices[-1] == (
        "orderdep: checking the fork runner against a fresh pytest (the original order of "
        "1 tests, then failing tests alone) did not finish within its share of the budget "
        "(5.0 s); using the subprocess runner, which needs no check (each order in a fresh "
        "pytest, slower). To let the check finish once (its verdict is kept for this code "
        "version), rerun with a larger --budget (now 10 s); --no-check uses the fork runner "
        "unchecked"
    )


def test_failing_tests_alone_get_a_share_of_their_own_once_the_original_order_compared(
    tmp_path: Path,
) -> None:
    """On a loaded machine the original order can use most of the check's share; the
    failing tests alone (a fresh pytest each) then get a share of their own instead of
    sending every later order to a fresh pytest."""
    marks = tmp_path / "marks"
    marks.mkdir()
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_counts.py": f"""
                import os
                import time

                SEEN = []

                def test_first():
                    SEEN.append(1)
                    open(os.path.join({str(marks)!r}, f"original-{{os.getpid()}}"), "w").close()

                def test_counts():
                    if not SEEN:  # alone: slower than what the original order left
                        open(os.path.join({str(marks)!r}, f"alone-{{os.getpid()}}"), "w").close()
                        time.sleep(1.0)
                    assert False
            """,
        },
    )
    began: list[float] = []

    def clock() -> float:
        """The original order costs 19.5 s of its 20 s share, whatever the machine's
        load; from the first run alone on, real seconds are added."""
        names = [p.name for p in marks.iterdir()]
        if not any(n.startswith("original-") for n in names):
            return 0.0
        if not began and any(n.startswith("alone-") for n in names):
            began.append(time.monotonic())
        return 19.5 + (time.monotonic() - began[0] if began else 0.0)

    notices: list[str] = []
    with Engine(EngineConfig(project, jobs=2)) as engine:
        budget = Budget(40.0, clock=clock)
        report = trust_fork(engine, VerdictCache(tmp_path / "v.json"), notices.append, budget)
        assert report is not None and report.faithful, notices
        assert engine.runner == "fork"
    assert "orderdep: checking the fork runner: 1 failing test(s) alone" in notices


def test_a_test_flipping_between_runs_does_not_cost_the_fork_runner_its_trust(
    tmp_path: Path,
) -> None:
    """A non-deterministic test disagrees with a fresh pytest by chance: the order runs
    again, the test's outcome changes under one runner, and the fork runner is kept."""
    runs = tmp_path / "runs"
    project = write_files(
        tmp_path / "p",
        {
            "tests/test_flips.py": f"""
                def test_steady():
                    pass

                def test_flips():  # passes on every other run, whichever process runs it
                    with open({str(runs)!r}, "a+") as f:
                        f.write("x")
                        f.seek(0)
                        count = len(f.read())
                    assert count % 2 == 1
            """,
        },
    )
    notices: list[str] = []
    with Engine(EngineConfig(project, jobs=1)) as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "v.json"), notices.append)
        assert report is not None and report.faithful, notices
        assert report.nondeterministic == ["tests/test_flips.py::test_flips"]
        assert engine.runner == "fork"
    assert any("test_flips gave another outcome when its order ran again" in n for n in notices)


def test_ctrl_c_during_the_check_stops_it_like_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a budget, Ctrl-C kills the check's runs and is kept for the command, which
    saves its report before it stops."""
    from orderdep.analysis import fork_pair

    project, pids = sleeper(tmp_path)
    real_wait = fork_pair.wait
    pressed: list[int] = []

    def interrupted(futures: Any, timeout: Optional[float] = None) -> Any:
        if pressed:  # once
            return real_wait(futures, timeout=timeout)
        while not started_both(pids, 2)():
            real_wait(futures, timeout=0.1)
        pressed.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(fork_pair, "wait", interrupted)
    notices: list[str] = []
    with Engine(EngineConfig(project, jobs=2)) as engine:
        budget = Budget(None)
        got = trust_fork(engine, VerdictCache(tmp_path / "v.json"), notices.append, budget)
        assert got is None
        assert budget.stop_reason == "interrupted"
        assert isinstance(budget.interrupt, KeyboardInterrupt)
    assert running(pids) == []
    assert notices[-1] == (
        "orderdep: interrupted while checking the fork runner; nothing was checked"
    )


def test_volatile_ids_are_compared_not_taken_for_a_difference(tmp_path: Path) -> None:
    """A fresh pytest collects the clock-made id under another id: it still runs that
    test, so the runners agree, the fork runner stays, the test is named once and the
    cached verdict holds ids and outcomes only."""
    project = write_files(tmp_path / "p", VOLATILE)
    cache = VerdictCache(tmp_path / "verdicts.json")
    notices: list[str] = []
    with Engine(EngineConfig(project)) as engine:
        report = trust_fork(engine, cache, notices.append)
        stamp = stamp_of(engine.suite.ids)
        assert report is not None and report.faithful and engine.runner == "fork"
        assert report.volatile == [stamp] and report.left_out == []
        assert report.positions == len(engine.suite.ids)
    assert [n for n in notices if "change between two collections" in n] == [
        volatile_notice([stamp])
    ]
    assert (tmp_path / "verdicts.json").stat().st_size < 1000
    # A cached verdict names the test function (the ids were another process's).
    again: list[str] = []
    with Engine(EngineConfig(project)) as engine:
        assert trust_fork(engine, cache, again.append) is not None
    assert again == [volatile_notice([f"{MOD}::test_stamp[...]"])]


def test_tests_a_fresh_pytest_cannot_match_are_left_out_and_named(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", growing(tmp_path / "collections"))
    notices: list[str] = []
    with Engine(EngineConfig(project)) as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "v.json"), notices.append)
        grow = [t for t in engine.suite.ids if t.startswith(GROW)]
        assert report is not None and report.faithful and engine.runner == "fork"
        assert report.left_out == grow
        assert report.positions == len(engine.suite.ids) - len(grow)
    assert any("left out of the comparison" in n for n in notices)


def test_a_suite_with_nothing_to_compare_is_left_out_whole(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", {MOD: grown(tmp_path / "collections")})
    with Engine(EngineConfig(project)) as engine:
        report = trust_fork(engine, VerdictCache(tmp_path / "v.json"), lambda message: None)
        assert report is not None and report.faithful and report.positions == 0
        assert report.left_out == engine.suite.ids


def test_a_damaged_cache_entry_is_checked_again(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    bad = {"label": "original", "position": 3, "outcomes": {}, "messages": {}}
    entry = {"runners": ["fork", "plain"], "orders": 1, "positions": 1, "mismatches": [bad]}
    path.write_text(json.dumps({"k": entry}))
    assert VerdictCache(path).get("k") is None


def test_a_verdict_is_kept_per_version_of_the_runners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict cached by another orderdep (whose runners may have differed) is not
    taken for this one's."""
    from orderdep.analysis import fidelity

    config = EngineConfig(tmp_path)
    before = config_key(config)
    assert config_key(config) == before
    monkeypatch.setattr(fidelity, "__version__", "0.0.0-other")
    assert config_key(config) != before


def test_one_after_the_other_the_heartbeat_names_the_run_still_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--jobs 1`` the fresh pytest starts when the fork runner's run ends: until
    then it is waiting, not running."""
    still = _heartbeats(tmp_path, monkeypatch, jobs=1)
    assert still[0].startswith(
        "orderdep: checking the fork runner: fork still running, then plain ("
    )
    assert not any("fork and plain" in n for n in still), still
    assert any(
        n.startswith("orderdep: checking the fork runner: plain still running (") for n in still
    )
