"""Generated suites: layout, ground truth, and real pytest runs that obey that ground truth."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.odmodel import ODSpec, fails
from orderdep.errors import ReportError, UsageError
from orderdep.synth.channels import CHANNELS
from orderdep.synth.generate import GroundTruth, SuitePlan, generate_suite

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# A pytest plugin that runs exactly the node ids of $OD_ORDER (a JSON list, repeats allowed)
# and writes one outcome per position to $OD_RESULTS.
ORDER_PLUGIN = textwrap.dedent("""
    import json
    import os

    import pytest

    _outcomes = []


    def pytest_collection_modifyitems(session, config, items):
        by_id = {item.nodeid: item for item in items}
        seen = set()
        ordered = []
        for test in json.loads(open(os.environ["OD_ORDER"], encoding="utf-8").read()):
            item = by_id[test]
            if id(item) in seen:
                item = pytest.Function.from_parent(item.parent, name=item.name)
            seen.add(id(item))
            ordered.append(item)
        items[:] = ordered


    def pytest_runtest_logreport(report):
        if report.when == "setup":
            _outcomes.append([report.nodeid, "passed"])
        if report.failed:
            _outcomes[-1][1] = "failed"


    def pytest_sessionfinish(session):
        with open(os.environ["OD_RESULTS"], "w", encoding="utf-8") as fh:
            json.dump(_outcomes, fh)
""")

PYTEST_FLAGS = ["-p", "no:randomly", "-p", "no:random_order", "-p", "no:cacheprovider"]


def _pytest(root: Path, *args: str, env: Optional[dict[str, str]] = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_FLAGS, *args],
        cwd=root,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.stdout + proc.stderr


def collect(root: Path) -> list[str]:
    out = _pytest(root, "--collect-only", "-q")
    return [line for line in out.splitlines() if "::" in line]


def run_order(root: Path, order: Sequence[str], work: Path) -> list[bool]:
    """Run ``order`` in one pytest process; whether each position failed."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "od_order_plugin.py").write_text(ORDER_PLUGIN, encoding="utf-8")
    order_file, results = work / "order.json", work / "results.json"
    order_file.write_text(json.dumps(list(order)), encoding="utf-8")
    results.unlink(missing_ok=True)
    env = {
        "OD_ORDER": str(order_file),
        "OD_RESULTS": str(results),
        "PYTHONPATH": os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")]),
    }
    out = _pytest(root, "-p", "od_order_plugin", "-q", env=env)
    assert results.exists(), out
    rows = json.loads(results.read_text(encoding="utf-8"))
    assert [r[0] for r in rows] == list(order), out
    return [r[1] == "failed" for r in rows]


def assert_matches_truth(truth: GroundTruth, order: Sequence[str], failed: Sequence[bool]) -> None:
    expected = truth.expected_failures(order)
    wrong = [
        (i, test, exp, got)
        for i, (test, exp, got) in enumerate(zip(order, expected, failed))
        if exp is not None and exp != got
    ]
    assert not wrong, f"positions where the real run disagrees with the ground truth: {wrong}"


# --- plans ----------------------------------------------------------------------------


def test_plan_rejects_bad_values() -> None:
    with pytest.raises(UsageError, match="'nope'"):
        SuitePlan(channels=("module_dict", "nope"))
    with pytest.raises(UsageError, match="copies"):
        SuitePlan(copies=0)
    with pytest.raises(UsageError, match="nd_rate"):
        SuitePlan(nd_rate=1.5)
    with pytest.raises(UsageError, match="original_order_fails"):
        SuitePlan(channels=(), original_order_fails=True)
    with pytest.raises(UsageError, match="bogus"):
        SuitePlan.from_json({"bogus": 1})


def test_default_plan_plants_everything_and_round_trips() -> None:
    plan = SuitePlan()
    assert plan.channels == CHANNELS
    assert plan.planted_count() == 63
    assert SuitePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan


@pytest.mark.parametrize("n", [1, 5, 12, 40, 79, 200])
def test_plan_for_size_leaves_fillers(n: int) -> None:
    plan = SuitePlan.for_size(n)
    assert plan.planted_count() <= max(0, n - max(2, n // 5))
    if n >= 79:
        assert plan == SuitePlan()


def test_refuses_non_empty_root_and_too_small_sizes(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("x")
    with pytest.raises(UsageError, match="not empty"):
        generate_suite(tmp_path / "busy", n_tests=10, seed=0)
    with pytest.raises(UsageError, match="at least 63"):
        generate_suite(tmp_path / "small", n_tests=20, seed=0, plan=SuitePlan())


# --- ground truth ---------------------------------------------------------------------


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_project_and_truth(tmp_path: Path) -> None:
    a = generate_suite(tmp_path / "a", n_tests=50, seed=7)
    b = generate_suite(tmp_path / "b", n_tests=50, seed=7)
    c = generate_suite(tmp_path / "c", n_tests=50, seed=8)
    assert a.to_json() == b.to_json()
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert a.tests != c.tests


def test_truth_of_full_plan(tmp_path: Path) -> None:
    truth = generate_suite(tmp_path / "p", n_tests=90, seed=3)
    assert len(truth.tests) == len(set(truth.tests)) == 90
    assert set(truth.channels.values()) == {*CHANNELS, "random"}
    everything = set(truth.tests)
    for spec in truth.specs:
        assert spec.related_tests() <= everything
        assert truth.channels[spec.test] and truth.locations[spec.test]
    kinds = [s.kind for s in truth.specs]
    assert kinds.count("brittle") == 4 and kinds.count("victim") == 15
    assert any(s.polluter_groups for s in truth.specs)
    assert any(len(g) == 3 for s in truth.specs for g in s.state_setter_groups)
    assert any(len(s.state_setters) == 2 for s in truth.specs)
    two = [s for s in truth.specs if len(s.polluters) == 2]
    assert len(two) == 1 and len({tuple(v) for v in two[0].cleaners.values()}) == 2
    assert max(len(c) for s in truth.specs for c in s.cleaners.values()) >= 4
    assert len(truth.nd_tests) == len(truth.nio_tests) == 1 and not truth.always_failing
    assert truth.failing_in(truth.tests) == []  # the original order passes
    for spec in truth.specs:  # the original order puts victims before polluters
        assert not fails(spec, truth.tests)


def test_module_fixture_victim_is_cleaned_by_other_modules(tmp_path: Path) -> None:
    plan = SuitePlan(channels=("module_fixture",), channel_cleaners=False, **_ONLY)
    truth = generate_suite(tmp_path / "p", n_tests=30, seed=4, plan=plan)
    (spec,) = truth.specs
    module = spec.test.split("::")[0]
    others = [t for t in truth.tests if not t.startswith(module + "::")]
    assert spec.polluters[0].startswith(module + "::")
    assert spec.cleaners == {spec.polluters[0]: others}


_ONLY: dict[str, Any] = dict(
    many_cleaners=0,
    two_polluters=False,
    polluter_group=False,
    brittles_one_setter=0,
    brittle_two_setters=False,
    brittle_setter_group=False,
    nd_tests=0,
    nio_tests=0,
)


def test_original_order_fails_flag(tmp_path: Path) -> None:
    plan = SuitePlan(original_order_fails=True, always_failing=True)
    truth = generate_suite(tmp_path / "p", n_tests=80, seed=5, plan=plan)
    (victim,) = [
        s.test
        for s in truth.specs
        if truth.channels[s.test] == "module_dict" and "exporter" in s.test
    ]
    assert len(truth.always_failing) == 1
    assert set(truth.failing_in(truth.tests)) == {victim, *truth.always_failing}


def test_json_round_trip_and_errors(tmp_path: Path) -> None:
    truth = generate_suite(tmp_path / "p", n_tests=40, seed=2)
    path = truth.write(tmp_path / "truth.json")
    again = GroundTruth.read(path)
    assert again == truth and again.to_json() == truth.to_json()
    with pytest.raises(ReportError, match="format"):
        GroundTruth.from_json({"tests": []})
    with pytest.raises(ReportError, match="malformed"):
        GroundTruth.from_json({"format": "orderdep.groundtruth/1"})
    (tmp_path / "bad.json").write_text("[1]")
    with pytest.raises(ReportError, match="JSON object"):
        GroundTruth.read(tmp_path / "bad.json")


def test_model_executor_agrees_with_truth(tmp_path: Path) -> None:
    truth = generate_suite(tmp_path / "p", n_tests=80, seed=11)
    executor = truth.model_executor(seed=1)
    rng = random.Random(0)
    for _ in range(30):
        order = rng.sample(truth.tests, len(truth.tests))
        order += rng.sample(order, 5)  # repeats exercise the NIO test and re-runs
        result = executor.run(order)
        expected = truth.expected_failures(order)
        got = [r.outcome.is_failure for r in result.results]
        assert all(e is None or e == g for e, g in zip(expected, got))
    nio = truth.nio_tests[0]
    assert truth.expected_failures([nio, nio]) == [False, True]
    assert truth.model_specs()[-1] == ODSpec(nio, "victim", polluters=[nio])


# --- real runs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    root = tmp_path_factory.mktemp("generated") / "project"
    return root, generate_suite(root, n_tests=90, seed=2024)


def _victim_segments(spec: ODSpec) -> tuple[list[list[str]], list[list[str]]]:
    """(orders that make ``spec.test`` fail, orders that make it pass), ending with it."""
    v = spec.test
    if spec.kind == "brittle":
        setters = (
            spec.state_setter_groups[0] if spec.state_setter_groups else spec.state_setters[:1]
        )
        failing = [[v]]
        if spec.state_setter_groups:  # the group out of order does not set the state
            failing.append([*reversed(setters), v])
        return failing, [[*setters, v]]
    failing, passing = [], [[v]]
    for key, members in spec.polluter_keys():
        failing.append([*members, v])
        cleaners = spec.cleaners.get(key, [])
        if cleaners:
            passing.append([*members, cleaners[0], v])
        if len(members) > 1:
            passing.append([members[0], v])
        for other, _ in spec.polluter_keys():  # a cleaner of another polluter only
            only_other = [c for c in spec.cleaners.get(other, []) if c not in cleaners]
            if other != key and only_other:
                failing.append([*members, only_other[0], v])
    return failing, passing


def _targeted(truth: GroundTruth, want_fail: bool) -> list[str]:
    order: list[str] = []
    for spec in truth.specs:
        for segment in _victim_segments(spec)[0 if want_fail else 1]:
            order += segment
            assert truth.expected_failures(order)[-1] is want_fail, segment
    return order


def test_collect_only_gives_the_original_order(project: tuple[Path, GroundTruth]) -> None:
    root, truth = project
    assert collect(root) == truth.tests


def test_original_order_passes(project: tuple[Path, GroundTruth], tmp_path: Path) -> None:
    root, truth = project
    failed = run_order(root, truth.tests, tmp_path)
    assert {t for t, f in zip(truth.tests, failed) if f} <= set(truth.nd_tests)


def test_polluters_and_missing_setters_make_od_tests_fail(
    project: tuple[Path, GroundTruth], tmp_path: Path
) -> None:
    root, truth = project
    order = _targeted(truth, want_fail=True) + truth.nio_tests * 2
    failed = run_order(root, order, tmp_path)
    assert_matches_truth(truth, order, failed)
    assert failed[-2:] == [False, True]  # the NIO test fails on its second run


def test_cleaners_and_setters_make_od_tests_pass(
    project: tuple[Path, GroundTruth], tmp_path: Path
) -> None:
    root, truth = project
    order = _targeted(truth, want_fail=False)
    failed = run_order(root, order, tmp_path)
    assert_matches_truth(truth, order, failed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_orders_match_truth(seed: int, tmp_path: Path) -> None:
    plan = SuitePlan(copies=2, always_failing=True, original_order_fails=True)
    truth = generate_suite(tmp_path / "p", n_tests=150, seed=seed, plan=plan)
    assert collect(tmp_path / "p") == truth.tests
    rng = random.Random(seed)
    for k in range(3):
        order = rng.sample(truth.tests, len(truth.tests))
        order += rng.sample(truth.tests, 20)
        failed = run_order(tmp_path / "p", order, tmp_path / f"run{k}")
        assert_matches_truth(truth, order, failed)


# --- the example project --------------------------------------------------------------


def test_example_project_obeys_its_ground_truth(tmp_path: Path) -> None:
    root = EXAMPLES / "bookshop"
    truth = GroundTruth.read(EXAMPLES / "bookshop.truth.json")
    assert collect(root) == truth.tests
    assert [s.kind for s in truth.specs] == ["victim", "victim", "brittle"]
    for k, order in enumerate(
        [truth.tests, _targeted(truth, want_fail=True), _targeted(truth, want_fail=False)]
    ):
        failed = run_order(root, order, tmp_path / f"run{k}")
        assert_matches_truth(truth, order, failed)
        assert any(failed) is (k == 1)


@pytest.mark.slow
def test_example_project_random_orders(tmp_path: Path) -> None:
    root = EXAMPLES / "bookshop"
    truth = GroundTruth.read(EXAMPLES / "bookshop.truth.json")
    rng = random.Random(3)
    order = [t for _ in range(6) for t in rng.sample(truth.tests, len(truth.tests))]
    failed = run_order(root, order, tmp_path)
    assert_matches_truth(truth, order, failed)
    assert any(failed)
