"""The pytest plugin end to end (pytester): --orderdep-deps under reordering and
deselection plugins, shards, xdist, header lines and option errors."""

from __future__ import annotations

import json
import re

import pytest

# Imported here so in-process runs (which drop the modules they import) do not import
# them again every time.
import pytest_randomly  # noqa: F401
import random_order.plugin  # noqa: F401

import orderdep.core.parallelization
import orderdep.shells.plugin_deps  # noqa: F401

pytest_plugins = ["pytester"]

# A tiny suite with planted order dependencies; the original order passes.
#   brittle  b::test_brittle   needs a::test_setter (or the group [b::test_g1, c::test_g2])
#   brittle  c::test_brittle2  needs a::test_setter2
#   victim   a::test_victim    fails after c::test_polluter
#   victim   b::test_victim2   fails after both a::test_p1 and c::test_p2
STATE = """
S = {"set": False, "g1": False, "g2": False, "set2": False,
     "polluted": False, "p1": False, "p2": False}
"""
TEST_A = """
from odstate import S
def test_setter(): S["set"] = True
def test_victim(): assert not S["polluted"]
def test_setter2(): S["set2"] = True
def test_a1(): pass
def test_p1(): S["p1"] = True
def test_a2(): pass
"""
TEST_B = """
from odstate import S
def test_brittle(): assert S["set"] or (S["g1"] and S["g2"])
def test_victim2(): assert not (S["p1"] and S["p2"])
def test_g1(): S["g1"] = True
def test_b1(): pass
def test_b2(): pass
"""
TEST_C = """
from odstate import S
def test_g2(): S["g2"] = S["g1"]
def test_brittle2(): assert S["set2"]
def test_polluter(): S["polluted"] = True
def test_p2(): S["p2"] = True
def test_c1(): pass
"""
OD_TESTS = {
    "test_b.py::test_brittle",
    "test_c.py::test_brittle2",
    "test_a.py::test_victim",
    "test_b.py::test_victim2",
}


def _dep(test: str, kind: str, dependee: str, group: list[str] | None = None) -> dict[str, object]:
    out: dict[str, object] = {"test": test, "kind": kind, "dependee": dependee}
    if group:
        out["group"] = group
    return out


GROUP_S = ["test_b.py::test_g1", "test_c.py::test_g2"]
GROUP_P = ["test_a.py::test_p1", "test_c.py::test_p2"]
DEPS = {
    "schema": "orderdep.deps/1",
    "dependencies": [
        _dep("test_b.py::test_brittle", "positive", "test_a.py::test_setter"),
        *(_dep("test_b.py::test_brittle", "positive", m, GROUP_S) for m in GROUP_S),
        _dep("test_c.py::test_brittle2", "positive", "test_a.py::test_setter2"),
        _dep("test_a.py::test_victim", "negative", "test_c.py::test_polluter"),
        *(_dep("test_b.py::test_victim2", "negative", m, GROUP_P) for m in GROUP_P),
    ],
}


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(odstate=STATE, test_a=TEST_A, test_b=TEST_B, test_c=TEST_C)
    pytester.path.joinpath("deps.json").write_text(json.dumps(DEPS), encoding="utf-8")
    return pytester


# hypothesis's plugin re-imports hypothesis on every in-process run (about 1 s each).
QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider")


def _failed(result: pytest.RunResult) -> int:
    return int(result.parseoutcomes().get("failed", 0))


def test_original_order_passes(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*QUIET, "-p", "no:randomly")
    result.assert_outcomes(passed=16)


SEEDS = range(1, 51)


@pytest.mark.parametrize(
    "plugin_args",
    [
        pytest.param(lambda s: ["-p", "randomly", f"--randomly-seed={s}"], id="randomly"),
        pytest.param(
            lambda s: [
                "-p",
                "random_order",
                "--random-order-bucket=global",
                f"--random-order-seed={s}",
            ],
            id="random-order",
        ),
    ],
)
def test_fifty_seeds_no_od_failures_with_deps(suite: pytest.Pytester, plugin_args) -> None:  # type: ignore[no-untyped-def]
    failures_with = {}
    seeds_failing_without = []
    for seed in SEEDS:
        args = [*QUIET, "-q", *plugin_args(seed)]
        failures_with[seed] = _failed(suite.runpytest(*args, "--orderdep-deps", "deps.json"))
        # A few seeds that break the suite without the plugin are proof enough.
        if len(seeds_failing_without) < 3 and _failed(suite.runpytest(*args)):
            seeds_failing_without.append(seed)
    assert sum(failures_with.values()) == 0, failures_with
    assert seeds_failing_without


def _first_failing_seed(suite: pytest.Pytester, test: str) -> int:
    """A pytest-randomly seed whose order makes ``test`` fail (without the plugin)."""
    for seed in SEEDS:
        result = suite.runpytest(*QUIET, "-p", "randomly", f"--randomly-seed={seed}", "-rf")
        if any(line.startswith(f"FAILED {test}") for line in result.outlines):
            return seed
    raise AssertionError(f"no seed in {SEEDS!r} makes {test} fail")


def test_k_selecting_only_a_brittle_adds_its_state_setter(suite: pytest.Pytester) -> None:
    args = [*QUIET, "-p", "no:randomly", "-k", "test_brittle and not brittle2", "-v"]
    suite.runpytest(*args).assert_outcomes(failed=1)
    result = suite.runpytest(*args, "--orderdep-deps", "deps.json")
    result.assert_outcomes(passed=2, deselected=14)
    result.stdout.fnmatch_lines(
        [
            "*collected 16 items / 14 deselected / 2 selected",
            "orderdep: added 1 test, moved 0 to satisfy 1 dependency",
            "test_a.py::test_setter PASSED*",
            "test_b.py::test_brittle PASSED*",
        ]
    )


def test_header_counts_moves_and_verbose_names_them(suite: pytest.Pytester) -> None:
    # Reverse order breaks three dependencies (victim2 survives: p1 now runs after it).
    suite.makeconftest("def pytest_collection_modifyitems(items):\n    items.reverse()\n")
    args = [*QUIET, "-p", "no:randomly"]
    assert _failed(suite.runpytest(*args)) > 0
    result = suite.runpytest(*args, "--orderdep-deps", "deps.json", "-v")
    result.assert_outcomes(passed=16)
    header = [line for line in result.outlines if line.startswith("orderdep:")]
    assert re.fullmatch(r"orderdep: added 0 tests, moved \d+ to satisfy 3 dependencies", header[0])
    assert header[1].startswith("orderdep: moved ")


def test_failed_first_still_satisfies_dependencies(suite: pytest.Pytester) -> None:
    # --ff reorders after every plain hook (LFPlugin is a wrapper working after its
    # yield): the enhancement must come later still, or the brittle runs first and fails.
    seed = _first_failing_seed(suite, "test_b.py::test_brittle")
    args = ["-p", "no:hypothesispytest", "-p", "no:randomly"]
    suite.runpytest(*args, "-p", "randomly", f"--randomly-seed={seed}")
    assert _failed(suite.runpytest(*args, "--ff", "--cache-show")) == 0  # cache intact
    without = suite.runpytest(*args, "--ff", "-v")
    assert "test_b.py::test_brittle FAILED" in without.stdout.str()
    suite.runpytest(*args, "-p", "randomly", f"--randomly-seed={seed}")
    with_deps = suite.runpytest(*args, "--ff", "--orderdep-deps", "deps.json", "-v")
    with_deps.assert_outcomes(passed=16)


def test_last_failed_reruns_od_tests_with_what_they_need(suite: pytest.Pytester) -> None:
    seed = _first_failing_seed(suite, "test_b.py::test_brittle")
    args = ["-p", "no:hypothesispytest"]
    first = suite.runpytest(*args, "-p", "randomly", f"--randomly-seed={seed}")
    failed = _failed(first)
    assert failed >= 1
    # Without the plugin the brittle fails again, alone.
    again = suite.runpytest(*args, "-p", "no:randomly", "--lf")
    assert _failed(again) >= 1
    suite.runpytest(*args, "-p", "randomly", f"--randomly-seed={seed}")
    result = suite.runpytest(*args, "-p", "no:randomly", "--lf", "--orderdep-deps", "deps.json")
    assert _failed(result) == 0
    result.stdout.fnmatch_lines(["orderdep: added * test*, moved * to satisfy * dependenc*"])
    added = next(ln for ln in result.outlines if ln.startswith("orderdep: added "))
    assert not added.startswith("orderdep: added 0 ")


def test_ini_setting_names_the_file(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\norderdep_deps = deps.json\n")
    result = suite.runpytest(*QUIET, "-p", "no:randomly", "-k", "brittle2")
    result.assert_outcomes(passed=2, deselected=14)
    result.stdout.fnmatch_lines(["orderdep: added 1 test, moved 0 to satisfy 1 dependency"])


def _collected(result: pytest.RunResult) -> list[str]:
    return [ln for ln in result.outlines if "::" in ln and not ln.startswith("orderdep")]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_shards_cover_every_test_exactly_once(suite: pytest.Pytester, k: int) -> None:
    shards = []
    for i in range(1, k + 1):
        result = suite.runpytest(
            *QUIET, "-p", "no:randomly", "--orderdep-deps", "deps.json",
            f"--orderdep-shards={k}", f"--orderdep-shard={i}", "--co", "-q",
        )  # fmt: skip
        shards.append(_collected(result))
        result.stdout.fnmatch_lines([f"orderdep: shard {i}/{k}: * of 16 tests, *"])
    every = [t for shard in shards for t in shard]
    assert len(every) == len(set(every)) == 16
    # Each dependency group whole on one shard, in an order that satisfies it.
    for shard in shards:
        if "test_b.py::test_brittle" in shard:
            assert "test_a.py::test_setter" in shard
            assert shard.index("test_a.py::test_setter") < shard.index("test_b.py::test_brittle")
        if "test_a.py::test_victim" in shard:
            assert shard.index("test_a.py::test_victim") < shard.index("test_c.py::test_polluter")


def test_shards_run_their_share_under_random_orders(suite: pytest.Pytester) -> None:
    for seed in (1, 2, 3):
        for i in (1, 2):
            result = suite.runpytest(
                *QUIET, "-p", "randomly", f"--randomly-seed={seed}",
                "--orderdep-deps", "deps.json", "--orderdep-shards=2", f"--orderdep-shard={i}",
            )  # fmt: skip
            assert _failed(result) == 0


def test_shards_with_a_selection_add_dependees_only_where_needed(suite: pytest.Pytester) -> None:
    shards = []
    for i in (1, 2):
        result = suite.runpytest(
            *QUIET, "-p", "no:randomly", "--orderdep-deps", "deps.json", "-k", "brittle or a1",
            "--orderdep-shards=2", f"--orderdep-shard={i}", "--co", "-q",
        )  # fmt: skip
        shards.append(_collected(result))
    every = [t for shard in shards for t in shard]
    assert sorted(every) == sorted(
        [
            "test_a.py::test_a1",
            "test_a.py::test_setter",
            "test_b.py::test_brittle",
            "test_a.py::test_setter2",
            "test_c.py::test_brittle2",
        ]
    )


def test_shards_balance_by_durations_file(suite: pytest.Pytester) -> None:
    ids = _collected(suite.runpytest(*QUIET, "-p", "no:randomly", "--co", "-q"))
    durations = dict.fromkeys(ids, 0.1)
    durations["test_a.py::test_a1"] = 10.0
    suite.path.joinpath("durations.json").write_text(json.dumps(durations), encoding="utf-8")
    shards = []
    for i in (1, 2):
        result = suite.runpytest(
            *QUIET, "-p", "no:randomly", "--orderdep-durations", "durations.json",
            "--orderdep-shards=2", f"--orderdep-shard={i}", "--co", "-q",
        )  # fmt: skip
        shards.append(_collected(result))
    # The 10 s test alone on one machine, the 15 short ones on the other.
    assert shards[0] == ["test_a.py::test_a1"]
    assert len(shards[1]) == 15
    result.stdout.fnmatch_lines(
        ["orderdep: shard 2/2: 15 of 16 tests, *estimated 1.50s of a 10.00s makespan"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--orderdep-shards", "two"], "*--orderdep-shards: expected a whole number from 1 to 10000, got 'two'*"),
        (["--orderdep-shards", "0"], "*expected a whole number from 1 to 10000, got '0'*"),
        (["--orderdep-shards=2", "--orderdep-shard=3"], "*--orderdep-shard 3 is out of range for --orderdep-shards 2*"),
        (["--orderdep-shard=1"], "*--orderdep-shard needs --orderdep-shards K too*"),
        (["--orderdep-durations=d.json"], "*--orderdep-durations 'd.json' only balances shards*"),
        (["--orderdep-deps=missing.json"], "*no dependencies file at *missing.json*"),
    ],
)  # fmt: skip
def test_bad_options_are_rejected_naming_the_value(
    suite: pytest.Pytester, args: list[str], message: str
) -> None:
    result = suite.runpytest(*QUIET, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_deps_file_with_unknown_ids_is_a_usage_error_when_strict(suite: pytest.Pytester) -> None:
    bad = {
        "schema": "orderdep.deps/1",
        "dependencies": [
            {"test": "test_b.py::test_britle", "kind": "positive", "dependee": "test_a.py::test_setter"},
            {"test": "test_gone.py::test_x", "kind": "negative", "dependee": "test_a.py::test_a1"},
        ],
    }  # fmt: skip
    suite.path.joinpath("bad.json").write_text(json.dumps(bad), encoding="utf-8")
    result = suite.runpytest(*QUIET, "--orderdep-deps", "bad.json", "--orderdep-deps-strict")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*names tests this suite does not have:",
            "*'test_b.py::test_britle' (did you mean 'test_b.py::test_brittle'*",
            "*'test_gone.py::test_x'*",
            "Fix or remove these entries*",
        ]
    )
    # Tests of modules this run did not collect are not judged.
    ok = suite.runpytest(*QUIET, "-p", "no:randomly", "--orderdep-deps", "deps.json", "test_b.py")
    # ... and the brittle's state-setter, in a file not named, is collected and run.
    ok.assert_outcomes(passed=6, deselected=5)


def test_idle_without_options(suite: pytest.Pytester) -> None:
    suite.makeconftest(
        "import sys\n"
        "def pytest_sessionfinish(session):\n"
        "    loaded = 'orderdep.shells.plugin_deps' in sys.modules\n"
        "    print('\\nPLUGIN_DEPS_LOADED', loaded)\n"
    )
    result = suite.runpytest_subprocess("-p", "no:randomly", "-p", "no:hypothesispytest", "-s")
    result.assert_outcomes(passed=16)
    result.stdout.fnmatch_lines(["PLUGIN_DEPS_LOADED False"])
    assert "orderdep:" not in result.stdout.str()


def test_xdist_keeps_dependency_groups_on_one_worker(suite: pytest.Pytester) -> None:
    # This seed's order breaks the suite without the plugin (checked in one process).
    assert _failed(suite.runpytest(*QUIET, "-p", "randomly", "--randomly-seed=8")) > 0
    result = suite.runpytest_subprocess(
        "-p", "no:hypothesispytest", "-p", "randomly", "--randomly-seed=8",
        "-n", "2", "--orderdep-deps", "deps.json",
    )  # fmt: skip
    result.assert_outcomes(passed=16)
    result.stdout.fnmatch_lines(
        ["orderdep: 4 dependency group(s) (* of 16 tests) each kept on one worker*"]
    )


@pytest.mark.slow
def test_xdist_many_seeds_no_od_failures(suite: pytest.Pytester) -> None:
    for seed in range(1, 7):
        result = suite.runpytest_subprocess(
            "-p", "no:hypothesispytest", "-p", "randomly", f"--randomly-seed={seed}",
            "-n", "2", "--orderdep-deps", "deps.json",
        )  # fmt: skip
        result.assert_outcomes(passed=16)


def test_last_failed_brings_back_state_setters_from_skipped_files(
    suite: pytest.Pytester,
) -> None:
    # --lf does not even collect files without failures: test_a.py (the state-setter's)
    # is skipped, and the plugin must collect the state-setter itself.
    cache = suite.path / ".pytest_cache" / "v" / "cache"
    cache.mkdir(parents=True)
    lastfailed = {"test_c.py::test_brittle2": True, "test_b.py::test_victim2": True}
    (cache / "lastfailed").write_text(json.dumps(lastfailed), encoding="utf-8")
    args = ["-p", "no:hypothesispytest", "-p", "no:randomly", "--lf", "-v"]
    without = suite.runpytest(*args)
    without.assert_outcomes(passed=1, failed=1)
    (cache / "lastfailed").write_text(json.dumps(lastfailed), encoding="utf-8")
    result = suite.runpytest(*args, "--orderdep-deps", "deps.json")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*skipped 1 file*",
            "orderdep: added 1 test, moved 0 to satisfy 1 dependency",
            "test_b.py::test_victim2 PASSED*",
            "test_a.py::test_setter2 PASSED*",
            "test_c.py::test_brittle2 PASSED*",
        ]
    )


def test_last_failed_with_a_dependee_file_that_cannot_import(suite: pytest.Pytester) -> None:
    cache = suite.path / ".pytest_cache" / "v" / "cache"
    cache.mkdir(parents=True)
    (cache / "lastfailed").write_text(json.dumps({"test_c.py::test_brittle2": True}))
    suite.makepyfile(test_a="raise ImportError('broken on purpose')\n")
    result = suite.runpytest("-p", "no:hypothesispytest", "--lf", "--orderdep-deps", "deps.json")
    result.assert_outcomes(failed=1)  # the state-setter cannot be added; the run goes on
    result.stdout.fnmatch_lines(["orderdep: added 0 tests, moved 0 to satisfy 0 dependencies*"])


def test_testmon_deselection_gets_the_state_setter_back(suite: pytest.Pytester) -> None:
    pytest.importorskip("testmon")
    args = ["-p", "no:hypothesispytest", "-p", "no:randomly", "--testmon"]  # needs the cache
    suite.runpytest_subprocess(*args).assert_outcomes(passed=16)
    # Change only the brittle: testmon now selects it alone and deselects its state-setter.
    suite.makepyfile(
        test_b=TEST_B.replace(
            'def test_brittle(): assert S["set"] or (S["g1"] and S["g2"])',
            'def test_brittle():\n    ok = S["set"] or (S["g1"] and S["g2"])\n    assert ok',
        )
    )
    assert _failed(suite.runpytest_subprocess(*args)) == 1
    result = suite.runpytest_subprocess(*args, "--orderdep-deps", "deps.json", "-v")
    result.stdout.fnmatch_lines(["orderdep: added 1 test*", "*test_a.py::test_setter PASSED*"])
    assert _failed(result) == 0
    assert "test_b.py::test_brittle PASSED" in result.stdout.str()


@pytest.mark.parametrize("k", [2, 3])
def test_shards_use_the_ini_dependencies_file_too(suite: pytest.Pytester, k: int) -> None:
    suite.makeini("[pytest]\norderdep_deps = deps.json\n")
    shards = []
    for i in range(1, k + 1):
        for seed in (1, 2, 3):
            result = suite.runpytest(
                *QUIET, "-p", "randomly", f"--randomly-seed={seed}",
                f"--orderdep-shards={k}", f"--orderdep-shard={i}",
            )  # fmt: skip
            assert _failed(result) == 0, result.stdout.str()
        result.stdout.fnmatch_lines([f"orderdep: shard {i}/{k}: *, * dependency group(s) *"])
        shards.append(_collected(suite.runpytest(
            *QUIET, "-p", "no:randomly", f"--orderdep-shards={k}", f"--orderdep-shard={i}",
            "--co", "-q",
        )))  # fmt: skip
    for shard in shards:  # the groups the ini's file names are kept whole
        if "test_b.py::test_brittle" in shard:
            assert "test_a.py::test_setter" in shard


def test_the_readmes_plugin_examples_run(suite: pytest.Pytester) -> None:
    """Every `pytest` line of the README's plugin example, as printed (the deps file
    and ids adapted to this suite)."""
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "README.md"
    block = readme.read_text(encoding="utf-8").split("### The pytest plugin", 1)[1]
    lines = block.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(lines) >= 4
    commands = [line.split("#", 1)[0].split() for line in lines]
    assert [c[0] for c in commands if c[0] != "pytest"] == ["orderdep"]  # `orderdep deps` first
    for argv in (c for c in commands if c[0] == "pytest"):
        # the README's are the bundled example's tests; these, this suite's
        argv = [a.replace("orderdep-deps.json", "deps.json") for a in argv[1:]]
        argv = [
            a.replace("tests/test_search.py::test_find_by_author", "test_b.py::test_brittle")
            for a in argv
        ]
        argv = [a.replace("test_find_by_author", "test_brittle2") for a in argv]
        if "-n" in argv:
            pytest.importorskip("xdist")
            result = suite.runpytest_subprocess(*QUIET, *argv)
        else:
            result = suite.runpytest(*QUIET, *argv)
        assert result.ret == 0, (argv, result.stdout.str(), result.stderr.str())
