"""Verification of candidate changes on a patched copy of the project."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from orderdep.analysis.repair.verify.verify import Target, Verifier, copy_config, failure_kind
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

MOD = "tests/test_v.py"
SOURCE = textwrap.dedent(
    """
    STATE = []


    def test_pollute():
        STATE.append(1)


    def test_victim():
        assert STATE == []


    def test_other():
        assert True
    """
).lstrip()
P, V, OTHER = f"{MOD}::test_pollute", f"{MOD}::test_victim", f"{MOD}::test_other"
TARGET = Target(V, failing_orders=[[P, V]], passing_orders=[[V]])


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # its shutdown costs ~1 s per pytest process; these projects do not use it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("verify") / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / MOD).write_text(SOURCE)
    return root


@pytest.fixture(scope="module")
def verifier(project: Path) -> Iterator[Verifier]:
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    config = EngineConfig(project)
    with Engine(config) as engine:
        yield Verifier(config, engine)
    mp.undo()


def change(old: str, new: str) -> dict[str, tuple[str, str]]:
    return {MOD: (SOURCE, SOURCE.replace(old, new))}


def test_a_real_fix_verifies_and_the_tree_is_untouched(verifier: Verifier, project: Path) -> None:
    result = verifier.verify(
        change("    assert STATE == []", "    STATE.clear()\n    assert STATE == []"), TARGET
    )
    assert result.ok, result.problems
    assert result.orders_run == 3  # failing order, passing order, the suite
    assert result.summary() == "verified in 3 orders"
    assert (project / MOD).read_text() == SOURCE


def test_a_change_that_does_not_fix_is_rejected(verifier: Verifier) -> None:
    result = verifier.verify(change("# nothing", "# nothing"), TARGET)
    assert not result.ok
    assert result.problems == [f"{V} still failed in its failing order"]


def test_a_change_that_breaks_another_test_is_rejected(verifier: Verifier) -> None:
    broken = change("    assert STATE == []", "    STATE.clear()\n    assert STATE == []")
    broken[MOD] = (SOURCE, broken[MOD][1].replace("assert True", "assert False"))
    result = verifier.verify(broken, TARGET)
    assert result.problems == [f"{OTHER} now failed in the original order"]


def test_many_targets_in_one_copy_name_each_test_still_failing(verifier: Verifier) -> None:
    # test_other "fails" in an order where it cannot: a target the change does not meet
    unmet = Target(OTHER, failing_orders=[[P, V, OTHER]], passing_orders=[[OTHER]])
    fixed = change("    assert STATE == []", "    STATE.clear()\n    assert STATE == []")
    broken = {MOD: (SOURCE, fixed[MOD][1].replace("assert True", "assert STATE == [1]"))}
    result = verifier.verify(broken, unmet, also=[TARGET], keep_going=True)
    assert not result.ok
    # the unmet target is noted and the other's orders ran on, then the original order
    assert result.still_failing == [OTHER]
    assert result.problems[0] == f"{OTHER} still failed in its failing order"
    assert result.orders_run == 4  # the unmet target's first order, TARGET's two, the suite
    assert result.problems[1:] == [f"{OTHER} now failed in the original order"]
    both = verifier.verify(fixed, TARGET, also=[Target(OTHER, [], [[OTHER]])])
    assert both.ok, both.problems


def test_a_change_that_breaks_collection_is_rejected(verifier: Verifier) -> None:
    result = verifier.verify(change("def test_other():", "def test_other(:"), TARGET)
    assert not result.ok
    assert result.problems[0].startswith("the patched project does not run")


def test_copy_config_moves_paths_into_the_copy(tmp_path: Path) -> None:
    (tmp_path / "a" / "src").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    config = EngineConfig(
        tmp_path / "a", rootdir=str(tmp_path / "a"), pythonpath=(str(tmp_path / "a" / "src"), "lib"),
        jobs=3,
    )  # fmt: skip
    moved = copy_config(config, tmp_path / "b")
    assert moved.project == (tmp_path / "b").resolve()
    assert moved.rootdir == str(tmp_path / "b")
    assert moved.pythonpath == (str(tmp_path / "b" / "src"), "lib")
    assert moved.jobs == 1


FLIPPERS = """
import pathlib

STATE = []


def _run(name):
    counter = pathlib.Path({counters!r}) / name
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    return n


def test_pollute():
    STATE.append(1)


def test_flaky_late():
    assert _run("late") == 0  # passes, fails, fails, ...


def test_flaky_even():
    assert _run("even") % 2 == 1  # fails, passes, fails, ...


def test_flaky_third():
    assert _run("third") >= 2  # fails, fails, passes, ...


def test_victim():
    assert STATE == []
"""


@pytest.fixture
def flipping(tmp_path: Path) -> tuple[Path, str]:
    """A project with two tests whose outcomes change from run to run (counters outside it)."""
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    source = textwrap.dedent(FLIPPERS).lstrip().format(counters=str(tmp_path))
    (root / MOD).write_text(source)
    return root, source


def test_tests_flipping_between_two_unpatched_runs_are_not_compared(
    flipping: tuple[Path, str],
) -> None:
    root, source = flipping
    fixed = source.replace("    assert STATE == []", "    STATE.clear()\n    assert STATE == []")
    config = EngineConfig(root)
    with Engine(config) as engine:
        verifier = Verifier(config, engine)
        result = verifier.verify({MOD: (source, fixed)}, TARGET)
        # the patched suite, then an unpatched one (the even one passes there, so it
        # failed patched) and so a second unpatched one: the even and the third one
        # flipped between those two
        assert result.ok, result.problems
        assert verifier.unstable() == {f"{MOD}::test_flaky_even", f"{MOD}::test_flaky_third"}
        assert result.ignored == [f"{MOD}::test_flaky_even"]
        # passing patched, failing in both unpatched runs: said, not excused
        assert result.improved == [f"{MOD}::test_flaky_late"]


def test_the_suite_runs_unpatched_once_when_the_patched_run_agrees(project: Path) -> None:
    config = EngineConfig(project)
    with Engine(config) as engine:
        verifier = Verifier(config, engine)
        result = verifier.verify(change("    STATE.append(1)", "    pass"), TARGET)
        assert result.ok, result.problems
        # the failing order, the passing order and the suite, each once, unpatched
        assert engine.orders_run == 3
        assert not verifier.settled


def test_nondeterministic_tests_of_the_report_are_not_compared(
    flipping: tuple[Path, str],
) -> None:
    root, source = flipping
    even = f"{MOD}::test_flaky_even"
    fixed = source.replace("    assert STATE == []", "    STATE.clear()\n    assert STATE == []")
    target = Target(V, failing_orders=[[P, even, V]], passing_orders=[[V]])
    config = EngineConfig(root)
    with Engine(config) as engine:
        # the patched order runs first (the even one fails), the unpatched one then passes
        result = Verifier(config, engine, full_suite=False, nd_tests=[even]).verify(
            {MOD: (source, fixed)}, target
        )
        assert result.ok, result.problems
        assert result.ignored == [even]
        assert result.summary() == f"verified in 2 orders; ignored nondeterministic {even}"
        strict = Verifier(config, engine, full_suite=False).verify({MOD: (source, fixed)}, target)
        assert strict.problems == [f"{even} now failed in failing order"]


FAILING_POLLUTER = """
import types

STATE = []
REGISTRY = {"codec": types}  # a module: cannot be deep-copied


def test_pollute():
    STATE.append(1)
    assert False  # fails anyway, after polluting


def test_victim():
    assert STATE == []
"""


def test_a_change_that_makes_a_failing_polluter_raise_before_it_pollutes_is_rejected(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    source = textwrap.dedent(FAILING_POLLUTER).lstrip()
    (root / MOD).write_text(source)
    # the victim passes after it only because the polluter now stops at its first line
    crashing = source.replace(
        "    STATE.append(1)", "    import copy\n    copy.deepcopy(REGISTRY)\n    STATE.append(1)"
    )
    undoing = source.replace("    assert False", "    STATE.clear()\n    assert False")
    config = EngineConfig(root)
    with Engine(config) as engine:
        verifier = Verifier(config, engine)
        rejected = verifier.verify({MOD: (source, crashing)}, TARGET)
        assert rejected.problems == [
            f"{P} now fails with TypeError (was AssertionError) in failing order"
        ]
        accepted = verifier.verify({MOD: (source, undoing)}, TARGET)
        assert accepted.ok, accepted.problems


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("TypeError: cannot pickle 'module' object", "TypeError"),
        ("assert 2 == 1", "AssertionError"),
        ("AssertionError: '*' != '='", "AssertionError"),
        ("pyparsing.ParseException: Expected '('", "ParseException"),
        ("Failed: DID NOT RAISE <class 'ValueError'>", "Failed"),
        ("KeyboardInterrupt:", "KeyboardInterrupt"),
        ("", None),
        ("not collected in the test process: 'x'", None),
    ],
)
def test_failure_kind_names_the_exception_of_a_message(message: str, kind: object) -> None:
    assert failure_kind(message) == kind


def test_a_patched_copy_runs_in_fresh_processes_once_the_project_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork runner's check sent the unpatched project to fresh processes: a patch is
    verified there too, not by the runner that disagreed."""
    from orderdep.analysis.repair.verify import verify

    runners: list[str] = []

    class Recording(Engine):
        def __init__(self, config: EngineConfig, **kwargs: object) -> None:
            runners.append(config.runner)
            super().__init__(config)

    monkeypatch.setattr(verify, "Engine", Recording)
    fixed = change("    assert STATE == []", "    STATE.clear()\n    assert STATE == []")
    config = EngineConfig(project)
    with Engine(config) as engine:
        checker = Verifier(config, engine)
        assert checker.verify(fixed, TARGET, orders_only=True).ok
        engine.use_subprocess()
        result = checker.verify(fixed, TARGET, orders_only=True)
    assert result.ok, result.problems
    assert runners == ["fork", "subprocess"]
