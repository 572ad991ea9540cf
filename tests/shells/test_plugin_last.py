"""The plugin's record of each run's order (``orderdep why --last``) and its one-line hint
(pytester)."""

from __future__ import annotations

import shlex

import pytest

# Imported here so in-process runs (which drop the modules they import) do not import
# them again every time.
import pytest_randomly  # noqa: F401

import orderdep.shells.plugin_last  # noqa: F401
from orderdep.analysis.why.sources import recorded_processes
from orderdep.core.failing_order import recorded_order
from orderdep.errors import UsageError

pytest_plugins = ["pytester"]

SUITE = {
    "test_a": """
        STATE = {"polluted": False}
        def test_polluter(): STATE["polluted"] = True
        def test_other(): pass
        """,
    "test_b": """
        from test_a import STATE
        def test_victim(): assert not STATE["polluted"]
        def test_more(): pass
        """,
}
POLLUTER, VICTIM = "test_a.py::test_polluter", "test_b.py::test_victim"
HINT = "orderdep: find why it failed in this order:"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(**SUITE)
    pytester.makeini("[pytest]\n")
    return pytester


def hints(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("orderdep:")]


def test_each_run_records_its_order_and_failures(suite: pytest.Pytester) -> None:
    suite.runpytest("-p", "no:randomly").assert_outcomes(passed=3, failed=1)
    (main,) = recorded_processes(suite.path / ".pytest_cache")
    assert main.process == "main"
    assert main.order == [POLLUTER, "test_a.py::test_other", VICTIM, "test_b.py::test_more"]
    assert main.failed == [VICTIM]
    assert recorded_order([main], VICTIM) == [POLLUTER, "test_a.py::test_other", VICTIM]
    # the next run replaces it
    suite.runpytest("-p", "no:randomly", "test_b.py").assert_outcomes(passed=2)
    (main,) = recorded_processes(suite.path / ".pytest_cache")
    assert main.order == [VICTIM, "test_b.py::test_more"] and main.failed == []


def test_recording_can_be_switched_off(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\norderdep_record_last = false\n")
    suite.runpytest("-p", "no:randomly").assert_outcomes(passed=3, failed=1)
    with pytest.raises(UsageError, match="no recorded run"):
        recorded_processes(suite.path / ".pytest_cache")
    suite.makeini("[pytest]\n")
    suite.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    with pytest.raises(UsageError, match="no recorded run"):
        recorded_processes(suite.path / ".pytest_cache")


def test_a_failing_shuffled_run_ends_with_the_why_command(suite: pytest.Pytester) -> None:
    for seed in range(1, 40):  # a seed that runs the polluter before the victim
        result = suite.runpytest("-p", "randomly", f"--randomly-seed={seed}")
        if result.ret == 1:
            break
    else:
        raise AssertionError("no seed of 40 failed the victim")
    assert hints(result) == [f"{HINT} orderdep why {VICTIM} --last"]
    # from another directory, the command names the project
    sub = suite.mkdir("sub")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sub)
        result = suite.runpytest("-p", "randomly", f"--randomly-seed={seed}", str(suite.path))
    assert hints(result) == [
        f"{HINT} {shlex.join(['orderdep', 'why', VICTIM, str(suite.path), '--last'])}"
    ]


def test_no_hint_in_a_green_run_or_an_unshuffled_one(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "randomly", "-p", "no:randomly", "test_b.py")
    assert result.ret == 0 and hints(result) == []
    for seed in range(1, 40):
        result = suite.runpytest("-p", "randomly", f"--randomly-seed={seed}")
        if result.ret == 0:
            break
    assert result.ret == 0 and hints(result) == []
    result = suite.runpytest("-p", "no:randomly")  # fails, but in the order as written
    assert result.ret == 1 and hints(result) == []
    suite.makeini("[pytest]\norderdep_record_last = false\n")
    result = suite.runpytest("-p", "randomly", f"--randomly-seed={seed}", "-x", "--lf")
    assert hints(result) == []


@pytest.mark.slow
def test_xdist_workers_record_their_own_orders(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess("-p", "no:randomly", "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=4)
    processes = recorded_processes(suite.path / ".pytest_cache")
    assert sorted(p.process for p in processes) == ["gw0", "gw1"]
    assert len({p.run for p in processes}) == 1
    assert sorted(t for p in processes for t in p.order) == sorted(
        [POLLUTER, "test_a.py::test_other", VICTIM, "test_b.py::test_more"]
    )
    # each file ran whole on one worker: the victim's worker never ran the polluter
    assert recorded_order(processes, VICTIM) == [VICTIM]
    assert hints(result) == []


def test_every_failing_test_gets_its_why_command(pytester: pytest.Pytester) -> None:
    """Two victims fail in one shuffled run: the hint names both, in the order they
    failed; past SHOWN_FAILURES it says how many more."""
    pytester.makepyfile(
        test_a="""
            STATE = {"polluted": False}
            def test_polluter(): STATE["polluted"] = True
            def test_v1(): assert not STATE["polluted"]
            def test_v2(): assert not STATE["polluted"]
        """
    )
    pytester.makeini("[pytest]\n")
    for seed in range(1, 60):
        result = pytester.runpytest("-p", "randomly", f"--randomly-seed={seed}")
        if result.parseoutcomes().get("failed") == 2:
            break
    else:
        raise AssertionError("no seed of 60 failed both victims")
    named = [line.split(" orderdep why ")[1].split()[0] for line in hints(result)]
    assert sorted(named) == ["test_a.py::test_v1", "test_a.py::test_v2"]


def test_past_the_shown_failures_the_hint_counts_the_rest(pytester: pytest.Pytester) -> None:
    from orderdep.shells.plugin_last import SHOWN_FAILURES

    pytester.makepyfile(
        test_a="\n".join(f"def test_{i}(): assert False" for i in range(SHOWN_FAILURES + 2))
    )
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest("-p", "randomly", "--randomly-seed=1")
    lines = hints(result)
    assert len(lines) == SHOWN_FAILURES + 1
    assert lines[-1] == (
        "orderdep: and 2 more failed in this order; `orderdep why TEST --last` asks why for "
        "any of them"
    )
