"""``orderdep debug`` and ``orderdep fix`` through ``main(argv)``; printed commands are run back."""

from __future__ import annotations

import hashlib
import json
import random
import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from orderdep.core.report import ODFinding, Report, save_report
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.shells.cli import main

MOD = "tests/test_shop.py"
ADD, EMPTY, CANCEL = f"{MOD}::test_add_job", f"{MOD}::test_no_jobs", f"{MOD}::test_cancel_job"
SETTER, BRITTLE, MATH = f"{MOD}::test_load_prod", f"{MOD}::test_mode_is_prod", f"{MOD}::test_math"
IDS = [ADD, EMPTY, CANCEL, SETTER, BRITTLE, MATH]  # collection order

FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/jobs.py": """
        _JOBS = {}


        def add(name):
            _JOBS[name] = "new"


        def cancel(name):
            _JOBS.pop(name, None)


        def count():
            return len(_JOBS)
        """,
    "app/config.py": """
        _CONFIG = {}


        def load(values):
            _CONFIG.update(values)


        def get(key):
            return _CONFIG.get(key)
        """,
    MOD: '''
        from app import config, jobs


        def test_add_job():
            jobs.add("job_7")


        def test_no_jobs():
            """Nothing scheduled."""
            assert jobs.count() == 0  # keep this comment


        def test_cancel_job():
            jobs.cancel("job_7")


        def test_load_prod():
            config.load({"mode": "prod"})


        def test_mode_is_prod():
            assert config.get("mode") == "prod"


        def test_math():
            assert 1 + 1 == 2
        ''',
}


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # its shutdown costs ~1 s per pytest process; these projects do not use it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def make_project(root: Path, *, with_report: bool = True) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    if with_report:
        report = Report(
            project=str(root.resolve()),
            tests=IDS,
            od_tests=[
                ODFinding(
                    EMPTY, "victim", failing_order=[ADD, EMPTY], passing_order=[EMPTY],
                    polluters=[ADD], cleaners={ADD: [CANCEL]},
                ),
                ODFinding(
                    BRITTLE, "brittle", failing_order=[BRITTLE], passing_order=[SETTER, BRITTLE],
                    state_setters=[SETTER],
                ),
            ],
        )  # fmt: skip
        save_report(root / ".orderdep" / "report.json", report)
    return root


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and rel.parts[0] != ".orderdep" and "__pycache__" not in rel.parts:
            digest.update(str(rel).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def labelled(output: str, label: str) -> list[str]:
    return [
        line.split(": ", 1)[1]
        for line in output.splitlines()
        if line.strip().startswith(f"{label}:") or line.strip().startswith(f"{label} ")
    ]


def suite_passes_in(root: Path, orders: list[list[str]]) -> list[list[str]]:
    with Engine(EngineConfig(root)) as engine:
        return [engine.run(order).failed_tests() for order in orders]


def random_orders(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        order = list(IDS)
        rng.shuffle(order)
        out.append(order)
    return out


@pytest.mark.slow
def test_debug_names_the_polluted_root_and_its_commands_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    assert main(["debug", str(root), "--test", EMPTY]) == 1  # an OD test: a finding
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"debugging {EMPTY} (victim)"
    assert f"failing order (fails): {ADD} -> {EMPTY}" in lines
    assert "  polluted  app.jobs._JOBS: has extra key 'job_7'" in lines
    assert (
        "polluted: app.jobs._JOBS (putting its passing value back makes it pass "
        "in the failing order)" in lines
    )
    (reproduce,) = labelled(out, "reproduce")
    assert reproduce == shlex.join(["orderdep", "run", str(root), ADD, EMPTY])
    assert main(shlex.split(reproduce)[1:]) == 1  # it reproduces the failure
    assert "1 failed" in capsys.readouterr().out
    (repair,) = labelled(out, "repair")
    assert main([*shlex.split(repair)[1:], "--no-suite-check"]) == 1  # not applied
    assert "fix for" in capsys.readouterr().out


def test_debug_without_report_infers_orders_or_takes_a_polluter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop", with_report=False)
    assert main(["debug", str(root), "--test", BRITTLE, "--polluter", SETTER]) == 1
    out = capsys.readouterr().out
    assert f"debugging {BRITTLE} (brittle)" in out
    assert "  needed    app.config._CONFIG: lacks key 'mode'" in out.splitlines()
    assert main(["debug", str(root), "--test", MATH]) == 2
    assert "does not look order-dependent" in capsys.readouterr().err


def test_fix_prints_verified_patches_and_leaves_the_tree_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    before = tree_hash(root)
    assert main(["fix", str(root)]) == 1  # patches printed, not applied: OD tests left
    out = capsys.readouterr().out
    assert tree_hash(root) == before
    # the root cause first: the polluter cleans up after itself
    assert f"fix for {EMPTY} (victim): polluter, 3 changed line(s)" in out
    # the key the state-setter sets, through monkeypatch: undone when the brittle ends
    assert f"fix for {BRITTLE} (brittle): restore, 3 changed line(s)" in out
    lines = out.splitlines()
    assert '+    request.addfinalizer(lambda: jobs._JOBS.pop("job_7", None))' in lines
    assert (
        "+    # Set up the state this test needs (as test_load_prod does), undone when it ends."
        in lines
    )
    assert '+    monkeypatch.setitem(config._CONFIG, "mode", "prod")' in lines
    assert "patch set: 2 patch(es) for 2 OD test(s) hold together in 23 orders" in out
    table = out.split("summary:\n")[1].split("\npatch set:")[0].splitlines()
    assert [re.split(r"  +", row.strip()) for row in table] == [
        ["test", "kind", "fix", "changed lines"],
        [EMPTY, "victim", "polluter (verified)", "3"],
        [BRITTLE, "brittle", "restore (verified)", "3"],
    ]
    patches = sorted((root / ".orderdep" / "patches").iterdir())
    assert [p.name for p in patches] == [
        "patch-set.patch",  # both, verified together
        "tests_test_shop.py__test_mode_is_prod.patch",
        "tests_test_shop.py__test_no_jobs.patch",
    ]
    applies = labelled(out, "apply it")
    assert len(applies) == 2 and all(a.startswith("git -C ") for a in applies)
    for n, command in enumerate(applies):  # each applies alone (to a copy of the project)
        copy = shutil.copytree(root, tmp_path / f"copy{n}")
        subprocess.run(shlex.split(command.replace(str(root), str(copy))), check=True)
        assert (copy / MOD).read_text() != (root / MOD).read_text()
    # both patches, together, through the patch set
    (apply_all,) = labelled(out, "apply them all")
    subprocess.run(shlex.split(apply_all), check=True)  # fed back exactly as printed
    text = (root / MOD).read_text()
    assert text.startswith("import copy\n" if "copy." in text else "from app import config")
    assert (
        "def test_add_job(request):\n"
        "    # Undo this test's change to app.jobs._JOBS when it ends (test_no_jobs needs it).\n"
        '    request.addfinalizer(lambda: jobs._JOBS.pop("job_7", None))\n'
    ) in text
    assert "assert jobs.count() == 0  # keep this comment" in text
    orders = [[ADD, EMPTY], [BRITTLE], *random_orders(7, 3)]
    assert suite_passes_in(root, orders) == [[]] * len(orders)
    # the set reverses cleanly
    subprocess.run([*shlex.split(apply_all), "-R"], check=True)
    assert tree_hash(root) == before


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
def test_printed_patch_command_applies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path / "shop")
    assert main(["fix", str(root), "--test", EMPTY, "--strategy", "restore"]) == 1
    out = capsys.readouterr().out
    assert "+    jobs._JOBS.clear()" in out.splitlines()
    (command,) = [c for c in labelled(out, "or") if c.startswith("patch ")]
    subprocess.run(shlex.split(command), check=True, capture_output=True)
    assert suite_passes_in(root, [[ADD, EMPTY]]) == [[]]


def test_printed_apply_command_changes_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    assert main(["fix", str(root), "--test", EMPTY, "--strategy", "polluter"]) == 1
    out = capsys.readouterr().out
    (command,) = [c for c in labelled(out, "or") if c.startswith("orderdep fix")]
    assert command.endswith("--strategy polluter --apply")
    before = tree_hash(root)
    assert main(shlex.split(command)[1:]) == 0
    assert "applied to tests/test_shop.py" in capsys.readouterr().out
    assert tree_hash(root) != before
    text = (root / MOD).read_text()
    assert text.startswith("from app import config, jobs\n")  # no import needed
    assert (
        "def test_add_job(request):\n"
        "    # Undo this test's change to app.jobs._JOBS when it ends (test_no_jobs needs it).\n"
        '    request.addfinalizer(lambda: jobs._JOBS.pop("job_7", None))\n'
    ) in text
    orders = [[ADD, EMPTY], *random_orders(11, 3)]
    failed = suite_passes_in(root, orders)
    assert all(EMPTY not in f for f in failed), failed


def test_printed_fixture_command_adds_an_autouse_fixture_to_conftest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    argv = ["fix", str(root), "--test", EMPTY, "--strategy", "fixture", "--set-orders", "0"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert f"fix for {EMPTY} (victim): fixture" in out
    assert "+++ b/tests/conftest.py" in out.splitlines()
    (command,) = [c for c in labelled(out, "or") if c.startswith("orderdep fix")]
    assert command.endswith("--strategy fixture --apply")
    assert main(shlex.split(command)[1:]) == 0
    assert "applied to tests/conftest.py" in capsys.readouterr().out
    conftest = (root / "tests" / "conftest.py").read_text()
    assert conftest.startswith("import copy\n\nimport pytest\n\n\n@pytest.fixture(autouse=True)\n")
    # a project module stays imported where it is needed (not earlier, at collection);
    # the whole registry is put back, not only the key this victim's polluter adds
    assert "def _restore_jobs(monkeypatch):\n" in conftest
    assert (
        "    from app import jobs\n"
        "    monkeypatch.setattr(jobs, '_JOBS', copy.deepcopy(jobs._JOBS))\n"
    ) in conftest
    orders = [[ADD, EMPTY], *random_orders(11, 3)]
    failed = suite_passes_in(root, orders)
    assert all(EMPTY not in f for f in failed), failed


def test_fix_without_a_verified_patch_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    # pretend test_math sets the brittle's state: it has nothing but its own assert
    argv = ["fix", str(root), "--test", BRITTLE, "--polluter", MATH, "--strategy", "cleaner"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"no verified fix for {BRITTLE} (brittle):"
    assert f"  cleaner: state-setter {MATH} has no statements but its own checks" in out
    assert re.split(r"  +", out.split("summary:\n")[1].splitlines()[1].strip()) == [
        BRITTLE, "brittle", "no verified fix (reasons above)", "-",
    ]  # fmt: skip
    assert not any(line.startswith(("+", "diff --git")) for line in out.splitlines())
    assert not (root / ".orderdep" / "patches").exists()


def test_fix_does_not_compare_the_reports_nondeterministic_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop", with_report=False)
    counter = tmp_path / "runs"
    flaky = "tests/test_flaky.py::test_replica"
    (root / "tests" / "test_flaky.py").write_text(
        "import pathlib\n\n\ndef test_replica():\n"
        f"    counter = pathlib.Path({str(counter)!r})\n"
        "    n = int(counter.read_text()) if counter.exists() else 0\n"
        "    counter.write_text(str(n + 1))\n"
        "    assert n != 1  # the unpatched suite's run passes, the patched one fails\n"
    )
    report = Report(
        project=str(root.resolve()), tests=[*IDS, flaky],
        od_tests=[ODFinding(EMPTY, "victim", polluters=[ADD], cleaners={ADD: [CANCEL]})],
        nd_tests=[flaky],
    )  # fmt: skip
    save_report(root / ".orderdep" / "report.json", report)
    # --no-check: the fork runner's check would run the counting test twice more.
    # --set-orders 0: the set check would run the counting test in 20 more orders.
    # Exit 1: the patch is printed, not applied, so the OD test is still in the files.
    assert main(["fix", str(root), "--strategy", "cleaner", "--no-check", "--set-orders", "0"]) == 1
    out = capsys.readouterr().out
    assert f"fix for {EMPTY} (victim): cleaner, 1 changed line(s)" in out
    # it did run, and fail, in the patched suite; being known as nondeterministic, it
    # did not call for a second unpatched run either
    assert counter.read_text() == "2"


def test_fix_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path / "shop")
    assert main(["fix", str(root), "--test", MATH]) == 2
    assert "is not an OD test of the report" in capsys.readouterr().err
    assert main(["fix", str(root), "--polluter", ADD]) == 2
    assert "--polluter needs exactly one --test" in capsys.readouterr().err
    empty = make_project(tmp_path / "bare", with_report=False)
    assert main(["fix", str(empty)]) == 2
    assert "no report at" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_apply_command_for_a_project_inside_a_repository(tmp_path: Path) -> None:
    from orderdep.shells.patch_files import apply_commands

    repo = tmp_path / "repo"
    project = repo / "services" / "shop"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (project / "a.py").write_text("x = 1\n")
    patch = project / ".orderdep" / "patches" / "a.patch"
    patch.parent.mkdir(parents=True)
    patch.write_text(
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n"
    )
    git, plain = apply_commands(project, patch.relative_to(project))
    assert "--directory=services/shop" in git
    subprocess.run(shlex.split(git), check=True)
    assert (project / "a.py").read_text() == "x = 1\ny = 2\n"
    assert plain.startswith("patch -p1 -d ")


def test_fix_works_in_a_copy_of_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    copy = tmp_path / "elsewhere" / "shop"
    shutil.copytree(root, copy)  # its report still names the original directory
    argv = ["fix", str(copy), "--test", EMPTY, "--strategy", "restore", "--set-orders", "0"]
    assert main(argv) == 1  # printed, not applied: the OD test is still in the files
    assert f"fix for {EMPTY} (victim): restore" in capsys.readouterr().out


def test_patches_of_different_strategies_get_files_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    patches = root / ".orderdep" / "patches"
    for strategy in ("restore", "polluter"):
        argv = ["fix", str(root), "--test", EMPTY, "--strategy", strategy, "--set-orders", "0"]
        assert main(argv) == 1
        out = capsys.readouterr().out
        assert f"fix for {EMPTY} (victim): {strategy}" in out
        assert f"patch: {patches / f'tests_test_shop.py__test_no_jobs.{strategy}.patch'}" in out
    restore = (patches / "tests_test_shop.py__test_no_jobs.restore.patch").read_text()
    polluter = (patches / "tests_test_shop.py__test_no_jobs.polluter.patch").read_text()
    assert restore != polluter


def test_a_test_an_applied_patch_fixed_needs_nothing_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop")
    argv = ["fix", str(root), "--test", EMPTY, "--strategy", "polluter", "--set-orders", "0"]
    assert main([*argv, "--apply"]) == 0
    capsys.readouterr()
    patch = root / ".orderdep" / "patches" / "tests_test_shop.py__test_no_jobs.polluter.patch"
    assert patch.exists()
    applied = tree_hash(root)
    # the report still names it: fix says it passes in its failing order now
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"nothing to fix for {EMPTY} (victim):" in out
    assert "no verified fix" not in out
    assert "passed in its failing order" in out
    assert "none needed: passes in its failing order" in out
    assert tree_hash(root) == applied
    assert patch.exists()  # the applied patch is kept
    entry = json.loads((root / ".orderdep" / "fixes.json").read_text())["fixes"][EMPTY]
    assert (entry["fixed"], entry["reproduced"]) == (False, False)
    # the same with the polluter given on the command line
    assert main([*argv, "--polluter", ADD]) == 0
    assert "none needed: passes in its failing order" in capsys.readouterr().out
