"""``orderdep why TEST`` through ``main(argv)``, from every source of a failing order, on a
hand-written project (see ``why_project``); every command it prints is run back."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files
from why_project import (
    CACHE_EMPTY,
    CSV,
    FLAKY,
    IDS,
    LOGIN,
    MIGRATE,
    MODE_IS_PROD,
    NAMES,
    NO_CONFLICTS,
    OPEN,
    QUERY,
    SET_MODE,
    XLSX,
    pytest_run,
)

from orderdep.analysis.why import sources
from orderdep.engine.config import EngineConfig

if TYPE_CHECKING:
    from conftest import CliRunner

FAST = ("--no-check", "--no-fix")


pytestmark = pytest.mark.usefixtures("no_hypothesis_plugin")


def one_line(err: str) -> str:
    """The one error line that ends ``err``; only progress lines (``  .. ``) before it."""
    lines = err.rstrip().splitlines()
    assert lines and lines[-1].startswith("orderdep: error: "), err
    assert all(line.startswith("  .. ") for line in lines[:-1]), err
    return lines[-1]


def order_file(project: Path, order: list[str]) -> Path:
    path = project.parent / "failing.txt"
    path.write_text("\n".join(order) + "\n", encoding="utf-8")
    return path


def labelled(out: str, label: str) -> str:
    (line,) = [x for x in out.splitlines() if x.startswith(f"{label}")]
    return line.split(": ", 1)[1].strip()


def run_back(cli: CliRunner, command: str) -> int:
    argv = shlex.split(command)
    assert argv[0] == "orderdep"
    return cli(*argv[1:])[0]


def test_victim_of_one_polluter_from_an_order_file_with_state_patch_and_commands(
    shop: Path, cli: CliRunner
) -> None:
    order = [*NAMES, LOGIN, OPEN, SET_MODE, CACHE_EMPTY, CSV]
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order_file(shop, order))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{CACHE_EMPTY} fails in the order of --order-file (6 tests before it)"
    assert lines[1].startswith(f"victim of: {LOGIN} (of the 6 tests before it, only this one")
    assert "polluted state:" in lines
    assert "  app.settings.CACHE: has extra key 'user_7'" in lines
    assert any(line.startswith("patch (") for line in lines)
    assert "searching the 6 tests before it" in err  # progress on stderr
    failing, passing = labelled(out, "reproduce the failure"), labelled(out, "and the pass")
    assert failing == shlex.join(["orderdep", "run", str(shop), LOGIN, CACHE_EMPTY])
    assert run_back(cli, failing) == 1
    assert run_back(cli, passing) == 0
    # the patch is only printed; its command applies it, and then the failing order passes
    before = (shop / "tests/test_users.py").read_text()
    apply = labelled(out, "apply it")
    assert apply.startswith("git -C ")
    # its own file: a patch `fix` wrote for the same test (all its partners) stays
    assert apply.endswith(".why.patch")
    subprocess.run(shlex.split(apply), check=True, capture_output=True)
    assert (shop / "tests/test_users.py").read_text() != before
    assert run_back(cli, failing) == 0


def test_apply_changes_the_files_and_no_fix_leaves_them(shop: Path, cli: CliRunner) -> None:
    path = order_file(shop, [LOGIN, CACHE_EMPTY])
    before = (shop / "tests/test_users.py").read_text()
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", path, "--no-fix", "--quiet")
    assert code == 0 and "patch" not in out and "apply it" not in out
    assert out.startswith(f"{CACHE_EMPTY} fails") and err == ""  # --quiet: no progress
    assert (shop / "tests/test_users.py").read_text() == before
    code, out, _ = cli(
        "why", CACHE_EMPTY, shop, "--order-file", path, "--apply", "--no-suite-check"
    )
    assert code == 0 and "applied to tests/test_users.py" in out
    assert (shop / "tests/test_users.py").read_text() != before
    assert cli("run", shop, LOGIN, CACHE_EMPTY)[0] == 0


def test_victim_of_a_polluter_group(shop: Path, cli: CliRunner) -> None:
    order = [XLSX, *NAMES, OPEN, CSV, SET_MODE, NO_CONFLICTS]
    code, out, _ = cli("why", NO_CONFLICTS, shop, "--order-file", order_file(shop, order), *FAST)
    assert code == 0
    assert f"victim of a polluter group: {XLSX} -> {CSV} (all of them" in out
    assert "app.plugins._REGISTRY" in out
    failing = labelled(out, "reproduce the failure")
    assert shlex.split(failing)[3:] == [XLSX, CSV, NO_CONFLICTS]
    assert run_back(cli, failing) == 1
    assert run_back(cli, labelled(out, "and the pass")) == 0
    # asked again without what the first answer taught, every order comes from the store
    code, again, err = cli(
        "why", NO_CONFLICTS, shop, "--order-file", order_file(shop, order), *FAST, "--no-known"
    )
    assert code == 0 and again == out
    (count,) = [x for x in err.splitlines() if x.endswith("reused from the store")]
    ran, reused = count.split()[1], count.split(", ")[1].split()[0]
    assert int(ran) > 10 and reused == ran


def test_brittle_with_one_state_setter(shop: Path, cli: CliRunner) -> None:
    order = [MODE_IS_PROD, SET_MODE, *NAMES]
    code, out, _ = cli("why", MODE_IS_PROD, shop, "--order-file", order_file(shop, order), *FAST)
    assert code == 0
    assert f"brittle: fails alone; passes after its state-setter: {SET_MODE}" in out
    assert "state it needs:" in out and "SHOP_MODE" in out
    failing, passing = labelled(out, "reproduce the failure"), labelled(out, "and the pass")
    assert shlex.split(passing)[3:] == [SET_MODE, MODE_IS_PROD]
    assert run_back(cli, failing) == 1
    assert run_back(cli, passing) == 0


def test_brittle_with_a_set_of_state_setters(shop: Path, cli: CliRunner) -> None:
    order = [MIGRATE, OPEN, *NAMES, QUERY]  # migrating before opening does nothing
    code, out, _ = cli("why", QUERY, shop, "--order-file", order_file(shop, order), *FAST)
    assert code == 0
    assert f"passes after its state-setters, in this order: {OPEN} -> {MIGRATE}" in out
    passing = labelled(out, "and the pass")
    assert shlex.split(passing)[3:] == [OPEN, MIGRATE, QUERY]
    assert run_back(cli, passing) == 0
    assert run_back(cli, labelled(out, "reproduce the failure")) == 1


def test_a_flaky_failure_that_does_not_reproduce_is_never_called_order_dependent(
    shop: Path, cli: CliRunner
) -> None:
    code, out, err = cli("why", FLAKY, shop, "--order-file", order_file(shop, [*IDS]), *FAST)
    assert code == 2 and out == ""
    line = one_line(err)
    assert f"{FLAKY!r} passes in the given order" in line
    assert "under the fork runner and in fresh processes" in line
    assert "nondeterministic (ND) test, state shared between xdist workers" in line
    assert "trying fresh processes" in err


# -- sources: JUnit XML, seeds, --last -------------------------------------------------------
def failing_seed(project: Path, plugin: str, before: str, after: str) -> int:
    """A seed for which ``plugin`` runs ``before`` earlier than ``after`` (tried in turn)."""
    config = EngineConfig(project, runner="subprocess")
    for seed in range(1, 30):
        order = sources.seeded_order(config, plugin, seed)
        assert sorted(order) == sorted(IDS)
        if order.index(before) < order.index(after):
            return seed
    raise AssertionError(f"no seed of 30 puts {before} before {after}")


@pytest.mark.slow
def test_randomly_seed_then_last_after_the_real_failing_run_and_its_hint(
    shop: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = failing_seed(shop, "randomly", LOGIN, CACHE_EMPTY)
    # the real shuffled run with that seed fails the victim: our order is randomly's
    run = pytest_run(shop, "-p", "randomly", f"--randomly-seed={seed}")
    assert run.returncode == 1 and f"FAILED {CACHE_EMPTY}" in run.stdout
    code, out, _ = cli("why", CACHE_EMPTY, shop, "--randomly-seed", seed, *FAST)
    assert code == 0 and f"victim of: {LOGIN}" in out
    assert "fails in the order of --randomly-seed" in out
    # the run printed a command for each failing test; the first works from where pytest ran
    hints = [x for x in run.stdout.splitlines() if x.startswith("orderdep: ")]
    assert hints and all(
        h.startswith("orderdep: find why it failed in this order: orderdep why ") for h in hints
    )
    hint = hints[0]
    command = hint.split(": ", 2)[2]
    argv = shlex.split(command)
    assert argv[3:] == ["--last"] and f"FAILED {argv[2]}" in run.stdout
    monkeypatch.chdir(shop)
    code, out, _ = cli(*argv[1:], *FAST)
    assert code == 0 and "order of --last" in out
    assert "victim of" in out or "brittle: fails alone" in out
    code, out, _ = cli("why", CACHE_EMPTY, "--last", *FAST)
    assert code == 0 and f"victim of: {LOGIN}" in out


@pytest.mark.slow
def test_random_order_seed(shop: Path, cli: CliRunner) -> None:
    seed = failing_seed(shop, "random-order", SET_MODE, MODE_IS_PROD)
    # a seed where the brittle runs before its setter fails it (after: it passes)
    config = EngineConfig(shop, runner="subprocess")
    for bad in range(1, 30):
        order = sources.seeded_order(config, "random-order", bad)
        if order.index(MODE_IS_PROD) < order.index(SET_MODE):
            break
    run = pytest_run(shop, "-p", "no:randomly", f"--random-order-seed={bad}")
    assert f"FAILED {MODE_IS_PROD}" in run.stdout
    code, out, _ = cli("why", MODE_IS_PROD, shop, "--random-order-seed", bad, *FAST)
    assert code == 0 and f"passes after its state-setter: {SET_MODE}" in out
    code, _, err = cli("why", MODE_IS_PROD, shop, "--random-order-seed", seed, *FAST)
    assert code == 2 and "passes in the given order" in one_line(err)


@pytest.mark.slow
def test_junit_xml_of_a_real_run(shop: Path, cli: CliRunner, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    run = pytest_run(shop, "-p", "no:randomly", f"--junitxml={report}", *NAMES, LOGIN, CACHE_EMPTY)
    assert run.returncode == 1 and f"FAILED {CACHE_EMPTY}" in run.stdout
    code, out, _ = cli("why", CACHE_EMPTY, shop, "--junitxml", report, *FAST)
    assert code == 0
    assert f"{CACHE_EMPTY} fails in the order of --junitxml (4 tests before it)" in out
    assert f"victim of: {LOGIN}" in out
    assert run_back(cli, labelled(out, "reproduce the failure")) == 1


@pytest.mark.slow
def test_junit_xml_of_a_real_xdist_run_takes_the_order_of_the_victims_worker(
    shop: Path, cli: CliRunner, tmp_path: Path
) -> None:
    seed = failing_seed(shop, "randomly", LOGIN, CACHE_EMPTY)
    report = tmp_path / "junit.xml"
    run = pytest_run(
        shop, "-n", "2", "--dist", "loadfile", "-p", "randomly", f"--randomly-seed={seed}",
        f"--junitxml={report}",
    )  # fmt: skip
    assert f"FAILED {CACHE_EMPTY}" in run.stdout, run.stdout
    text = report.read_text()
    assert '<property name="xdist_worker" value="gw0" />' in text
    assert '<property name="xdist_worker" value="gw1" />' in text
    code, out, _ = cli("why", CACHE_EMPTY, shop, "--junitxml", report, *FAST)
    assert code == 0 and f"victim of: {LOGIN}" in out
    # only the tests of its worker (its file, with --dist loadfile) ran before it
    shown = out.splitlines()[0]
    before = int(shown.rsplit("(", 1)[1].split()[0])
    assert before <= len(NAMES) + 1


# -- bad input: one line, exit 2 -------------------------------------------------------------
def test_bad_input_is_one_line_and_exit_2(
    shop: Path, cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def error(*argv: object) -> str:
        code, out, err = cli("why", *argv, *FAST)
        assert code == 2 and out == "", (out, err)
        return one_line(err)

    path = order_file(shop, [LOGIN, CACHE_EMPTY])
    assert "exactly one of --order-file" in error(CACHE_EMPTY, shop)
    assert "--order-file and --last together" in error(
        CACHE_EMPTY, shop, "--order-file", path, "--last"
    )
    assert f"{QUERY!r} is not in the failing order (2 tests)" in error(
        QUERY, shop, "--order-file", path
    )
    passing = order_file(shop, [CACHE_EMPTY, LOGIN])
    assert "passes in the given order" in error(CACHE_EMPTY, shop, "--order-file", passing)
    missing = tmp_path / "nowhere.xml"
    assert "cannot read --junitxml" in error(CACHE_EMPTY, shop, "--junitxml", missing)
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuites><testcase", encoding="utf-8")
    assert "is not valid JUnit XML" in error(CACHE_EMPTY, shop, "--junitxml", broken)
    assert "no recorded run" in error(CACHE_EMPTY, shop, "--last")
    stale = shop / ".pytest_cache/v/orderdep/last/main"
    stale.parent.mkdir(parents=True)
    old_name = CACHE_EMPTY.replace("starts_empty", "is_empty")
    stale.write_text(
        '{"process": "main", "run": "r", "ended": 1.0, '
        f'"order": ["{LOGIN}", "{old_name}"], "failed": ["{old_name}"]}}'
    )
    line = error(old_name, shop, "--last")
    assert "renamed or removed since that run" in line and "run pytest again" in line
    # a seed for a plugin the interpreter cannot import
    absent = ("--randomly-seed", "orderdep_absent_plugin", "pytest-randomly", [])
    monkeypatch.setitem(sources.SEEDED, "randomly", absent)
    line = error(CACHE_EMPTY, shop, "--randomly-seed", "3")
    assert "--randomly-seed needs pytest-randomly" in line and "pip install pytest-randomly" in line


def test_printed_errors_name_a_fix_that_works(shop: Path, cli: CliRunner) -> None:
    # "not in the failing order" points at `orderdep collect`, which lists the real ids
    code, out, _ = cli("collect", shop)
    assert code == 0 and out.split() == IDS


def test_last_reads_the_cache_dir_pytest_is_configured_with(
    shop: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cache_dir` set in the ini file (relative to the rootdir), then run from a
    subdirectory: --last finds the order where pytest put it, not in .pytest_cache."""
    (shop / "pytest.ini").write_text("[pytest]\ncache_dir = build/pytest-cache\n")
    run = pytest_run(shop, "-p", "no:randomly", "-p", "no:hypothesispytest", LOGIN, CACHE_EMPTY)
    assert run.returncode == 1 and f"FAILED {CACHE_EMPTY}" in run.stdout
    assert (shop / "build/pytest-cache/v/orderdep/last/main").is_file()
    assert not (shop / ".pytest_cache").exists()
    code, out, _ = cli("why", CACHE_EMPTY, shop, "--last", *FAST)
    assert code == 0 and f"victim of: {LOGIN}" in out
    # With the cache provider off, pytest recorded nothing: say so and what to do.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider")
    code, out, err = cli("why", CACHE_EMPTY, shop, "--last", *FAST)
    assert code == 2 and out == ""
    line = one_line(err)
    assert "cannot find pytest's cache" in line and "pass --order-file" in line


# A simulation package whose tests share the global random generator, seeded once when
# the conftest is imported (as many scientific suites do): the converging test passes
# alone, but after 8, 11, 20 or 24 earlier draws it gets a value below its threshold.
RANDOM_STATE = {
    "sim/__init__.py": """
        import random


        def jitter():
            return random.random()
    """,
    "conftest.py": "import random\n\nrandom.seed(16)\n",
    "tests/test_a_walk.py": """
        import pytest

        import sim


        @pytest.mark.parametrize("step", range(24))
        def test_step(step):
            assert 0 <= sim.jitter() < 1
    """,
    "tests/test_z_converge.py": """
        import sim


        def test_converges():
            assert sim.jitter() >= 0.25
    """,
}
CONVERGES = "tests/test_z_converge.py::test_converges"


def test_a_victim_of_a_shared_random_generator_ends_marked_not_minimal(
    tmp_path: Path, cli: CliRunner
) -> None:
    project = tmp_path / "sim"
    write_files(project, RANDOM_STATE)
    steps = [f"tests/test_a_walk.py::test_step[{i}]" for i in range(24)]
    code, out, err = cli("why", CONVERGES, project, "--order-file",
                         order_file(project, [*steps, CONVERGES]), *FAST)  # fmt: skip
    assert code == 0, err
    assert "victim of many tests together:" in out and "(not minimal)" in out
    assert "more than 4 of the tests before it together" in out
    failing = labelled(out, "reproduce the failure")
    kept = shlex.split(failing)[3:-1]
    assert "--runner" not in kept  # the fork runner reproduced it, as a fresh pytest does
    assert len(kept) in (8, 11, 20, 24)  # any 8, 11, 20 or 24 draws make it fail
    assert run_back(cli, failing) == 1
    assert run_back(cli, labelled(out, "and the pass")) == 0
