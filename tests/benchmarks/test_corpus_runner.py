"""The corpus runner (benchmarks/corpus.py): scoring on stand-in runs, and one whole run
on a hand-written project kept in a local git repository."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import corpus_doc  # noqa: E402
import corpus_project  # noqa: E402
from corpus_project import Deadline, Known, Row, confirm, score_report  # noqa: E402

import corpus  # noqa: E402


class FakeTree:
    """Outcomes of orders as a table: the last test of an order, after what runs before."""

    def __init__(self, outcomes: dict[tuple[str, ...], str]) -> None:
        self.table = outcomes
        self.orders: list[list[str]] = []

    def outcome(self, order: list[str], test: str) -> str:
        self.orders.append(order)
        return self.table.get(tuple(order), "PASSED")


def test_confirm_keeps_victims_whose_polluter_fails_them() -> None:
    tree = FakeTree({("p1", "v"): "FAILED"})
    row = {"test": "v", "kind": "victim", "polluters": ["p1", "p2"]}
    known, why = confirm(tree, row)  # type: ignore[arg-type]
    assert known == Known("v", "victim", ["p1"]) and why == ""


def test_confirm_keeps_a_victim_that_fails_only_after_a_group_in_order() -> None:
    tree = FakeTree({("u", "p", "v"): "FAILED"})  # p alone before v does nothing
    row = {"test": "v", "kind": "victim", "polluters": ["p"],
           "polluter_groups": [["p", "u"], ["u", "p"]]}  # fmt: skip
    known, why = confirm(tree, row)  # type: ignore[arg-type]
    assert known == Known("v", "victim", [], [["u", "p"]]) and why == ""
    assert known.named() == {"p"}
    out = Row("x", "x")
    report = {"tests": ["u", "p", "v"], "od_tests": [{"test": "v", "kind": "victim",
                                                       "polluters": ["p"]}]}  # fmt: skip
    score_report(tree, report, [known], {"v"}, out)  # type: ignore[arg-type]
    assert (out.found, out.right_partner) == (1, 1)


def test_confirm_drops_a_victim_failing_alone_and_rows_not_reproduced() -> None:
    tree = FakeTree({("v",): "FAILED"})
    row = {"test": "v", "kind": "victim", "polluters": ["p1"]}
    assert confirm(tree, row) == (None, "alone: failed")  # type: ignore[arg-type]
    gone = {**row, "reproduces": False}
    assert confirm(FakeTree({}), gone) == (None, "did not reproduce by hand")  # type: ignore[arg-type]


def test_confirm_a_brittle_with_a_setter_set_it_needs_whole() -> None:
    tree = FakeTree({("b",): "FAILED", ("s1", "b"): "FAILED", ("s2", "b"): "FAILED"})
    row = {"test": "b", "kind": "brittle", "state_setters": ["s1", "s2"]}
    known, _ = confirm(tree, row)  # type: ignore[arg-type]
    assert known == Known("b", "brittle", ["s1", "s2"])
    assert ["s1", "s2", "b"] in tree.orders


def test_a_reset_removes_paths_in_the_tree_and_in_the_projects_temporary_directory(
    tmp_path: Path,
) -> None:
    python = tmp_path / "venv" / "bin" / "python"
    tree = tmp_path / "tree"
    (tree / "cache").mkdir(parents=True)
    (tmp_path / "tmp" / "bans").mkdir(parents=True)
    entry = {"reset": {"remove": ["cache", "$TMPDIR/bans"]}}
    corpus_project.Tree(entry, tree, python, Deadline(60)).reset()
    assert not (tree / "cache").exists() and not (tmp_path / "tmp" / "bans").exists()
    assert (tmp_path / "tmp").is_dir()


def test_a_row_counts_as_repaired_only_when_a_patch_was_written() -> None:
    known = [Known("v", "victim", ["p"]), Known("b", "brittle", ["s"])]
    fixed = FakeTree({("b",): "FAILED"})  # the victim passes after p; the brittle not alone
    assert corpus_project.count_repaired(fixed, known, "+x = 1\n") == (1, "")
    passed, note = corpus_project.count_repaired(FakeTree({}), known, "")
    assert passed == 0 and note.startswith("no patch: 2 row(s) passed")


def test_score_counts_kind_partner_and_checks_unlisted_findings() -> None:
    report = {
        "tests": ["p", "v", "q", "w"],
        "od_tests": [
            {"test": "v", "kind": "victim", "polluters": ["q"]},  # not the known partner
            {"test": "w", "kind": "victim", "polluters": ["p"]},  # unlisted, false
        ],
    }
    tree = FakeTree({("q", "v"): "FAILED"})  # plain pytest confirms q for v, not p for w
    out = Row("x", "x")
    score_report(tree, report, [Known("v", "victim", ["p"])], {"v"}, out)  # type: ignore[arg-type]
    assert (out.found, out.right_kind, out.right_partner) == (1, 1, 1)
    assert (out.unlisted, out.unlisted_confirmed) == (1, 0)


def test_an_unlisted_test_skipped_alone_and_failing_after_its_partner_is_confirmed() -> None:
    report = {"tests": ["p", "w", "v"], "od_tests": [
        {"test": "w", "kind": "victim", "polluters": ["p"]},  # unlisted
        {"test": "v", "kind": "victim", "polluters": ["p"]},  # listed
    ]}  # fmt: skip
    table = {("w",): "SKIPPED", ("p", "w"): "ERROR", ("v",): "SKIPPED", ("p", "v"): "FAILED"}
    out = Row("x", "x")
    score_report(FakeTree(table), report, [Known("v", "victim", ["q"])], {"v"}, out)  # type: ignore[arg-type]
    assert (out.unlisted, out.unlisted_confirmed) == (1, 1)
    # a known row is held to passing: skipped alone, its partner is not confirmed
    assert (out.found, out.right_partner) == (1, 0)


def test_a_brittle_found_as_a_victim_is_the_wrong_kind() -> None:
    report = {"tests": ["s", "b"], "od_tests": [{"test": "b", "kind": "victim", "polluters": []}]}
    out = Row("x", "x")
    score_report(FakeTree({}), report, [Known("b", "brittle", ["s"])], {"b"}, out)  # type: ignore[arg-type]
    assert (out.found, out.right_kind, out.right_partner) == (1, 0, 0)


def test_deadline_past_raises_a_timeout() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        Deadline(-1).left(10)
    assert Deadline(100).left(5) == 5


def test_missing_services_names_the_port_nobody_listens_on() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        open_port = server.getsockname()[1]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed = probe.getsockname()[1]
        entry = {"ports": [open_port, closed]}
        assert corpus_project.missing_services(entry) == [str(closed)]


def test_totals_against_targets() -> None:
    rows = [
        {**Row("a", "a", confirmed=2, found=2, right_kind=2, right_partner=1, repaired=1,
               unlisted=1, unlisted_confirmed=0, detect_wall=150.0).as_dict()},
        {**Row("b", "b", status="skipped", why="no source").as_dict()},
    ]  # fmt: skip
    cells = corpus_doc.totals(rows, "run", "rev", budget=120)
    assert cells[2] == "**total: 1 scored of 2**"
    assert cells[3] == "1 over budget + 10%"
    assert cells[9] == "2 of 2 (100%)" and cells[11] == "1 of 2 (50%)"
    assert cells[13] == "0 / 1 (1 not confirmed)"
    skipped = corpus_doc.cells(rows[1], "run", "rev", 120)
    assert skipped[3] == "skipped: no source" and len(skipped) == len(corpus_doc.HEADERS)


def test_the_totals_say_the_changed_lines_and_what_is_known_of_them() -> None:
    def row(name: str, **values: Any) -> dict[str, Any]:
        return {**Row(name, name, confirmed=2, **values).as_dict()}

    repaired = [row("a", repaired=2, changed_lines=12, repeated_blocks=1)]
    assert corpus_doc.totals(repaired, "run", "rev", budget=120)[-1] == (
        "12 (median 6.0 per repaired row; 1 repeated blocks)"
    )
    nothing = [row("a", repaired=0, changed_lines=0)]
    assert corpus_doc.totals(nothing, "run", "rev", budget=120)[-1] == "0 (0 repeated blocks)"
    unknown = [row("a", repaired=1, changed_lines=3, repeated_blocks=None)]
    assert corpus_doc.totals(unknown, "run", "rev", budget=120)[-1] == (
        "3 (median 3.0 per repaired row)"
    )


def test_a_result_is_kept_only_for_the_same_run(tmp_path: Path) -> None:
    key = {"orderdep": "abc", "budget": 60.0}
    (tmp_path / "result.json").write_text(json.dumps({"key": key, "row": {"name": "p"}}))
    assert corpus.done_before(tmp_path, key) == {"name": "p", "repeated_blocks": None}
    assert corpus.done_before(tmp_path, {**key, "budget": 120.0}) is None
    # a changed manifest entry runs again
    entry = {"name": "p", "commit": "c1"}
    assert corpus.project_key(key, entry) == corpus.project_key(key, dict(entry))
    assert corpus.project_key(key, entry) != corpus.project_key(key, {**entry, "history": True})
    # a row kept from before repeated blocks were counted gets them from its patch
    (tmp_path / "fix.patch").write_text("+a = 1\n+b = 2\n c\n+a = 1\n+b = 2\n")
    assert corpus.done_before(tmp_path, key) == {"name": "p", "repeated_blocks": 1}


def test_clone_layouts(tmp_path: Path) -> None:
    (tmp_path / "Owner+proj" / "repo").mkdir(parents=True)
    entry = {"name": "proj", "repo": "Owner/proj"}
    assert corpus.clone_of(entry, tmp_path) == tmp_path / "Owner+proj" / "repo"
    assert corpus.clone_of({"name": "x", "repo": "O/x"}, tmp_path) is None


POLLUTED = {
    "shop.py": "PRICES = {}\n",
    "tests/test_shop.py": textwrap.dedent(
        """
        import shop

        def test_add_price():
            shop.PRICES["tea"] = 2

        def test_no_prices():
            assert shop.PRICES == {}
        """
    ),
}


def _git_project(root: Path, files: dict[str, str] = POLLUTED) -> str:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shop"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=root, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip


def test_a_project_whose_set_up_reads_the_history_gets_a_clone(tmp_path: Path) -> None:
    import realsetup

    clone = tmp_path / "clone"
    clone.mkdir()
    commit = _git_project(clone)
    subprocess.run(["git", "tag", "v1.2"], cwd=clone, check=True)
    (clone / "shop.py").write_text("PRICES = {'later': 1}\n")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "2"],
                   cwd=clone, check=True)  # fmt: skip
    entry = {"name": "shop", "repo": "someone/shop", "commit": commit}
    for work in ("a", "h"):
        (tmp_path / work).mkdir()
    archived = realsetup.fetch_source(entry, tmp_path / "a", {"shop": clone})
    assert (archived / "shop.py").read_text() == "PRICES = {}\n"
    assert not (archived / ".git").exists()
    cloned = realsetup.fetch_source({**entry, "history": True}, tmp_path / "h", {"shop": clone})
    # an archive unpacked before the entry asked for the history is replaced by a clone
    again = realsetup.fetch_source({**entry, "history": True}, tmp_path / "a", {"shop": clone})
    assert (again / ".git").is_dir() and again == archived
    assert (cloned / "shop.py").read_text() == "PRICES = {}\n"  # the commit, not the tip
    described = subprocess.run(["git", "describe", "--tags"], cwd=cloned, check=True,
                               capture_output=True, text=True)  # fmt: skip
    assert described.stdout.strip() == "v1.2"


def test_a_checkout_named_by_the_manifest_keeps_its_name_in_every_copy(tmp_path: Path) -> None:
    import realsetup

    clone = tmp_path / "clone"
    clone.mkdir()
    commit = _git_project(clone)
    entry = {"name": "shop", "repo": "someone/shop", "commit": commit, "checkout": "shop"}
    (tmp_path / "w").mkdir()
    tree = realsetup.fetch_source(entry, tmp_path / "w", {"shop": clone})
    assert tree == tmp_path / "w" / f"shop-{commit[:12]}" / "shop"
    assert (tree / "shop.py").read_text() == "PRICES = {}\n"
    assert realsetup.fetch_source(entry, tmp_path / "w", {"shop": clone}) == tree  # kept
    copy = realsetup.fresh_copy(tree, tmp_path / "w" / "fix-copy")
    assert copy == tmp_path / "w" / "fix-copy" / "shop"
    assert (copy / "tests" / "test_shop.py").is_file()


def _manifest(tmp_path: Path) -> list[str]:
    """A manifest of the hand-written project and a skipped one; the runner's arguments."""
    clone = tmp_path / "clones" / "someone+shop"
    clone.mkdir(parents=True)
    commit = _git_project(clone)
    manifest = {
        "projects": [
            {"name": "shop", "repo": "someone/shop", "commit": commit, "install": "none",
             "requirements": ["pytest"],
             "known": [{"test": "tests/test_shop.py::test_no_prices", "kind": "victim",
                        "reproduces": True, "polluters": ["tests/test_shop.py::test_add_price"]}]},
            {"name": "gone", "repo": "someone/gone", "commit": commit, "status": "skipped",
             "why": "no source", "known": []},
        ]
    }  # fmt: skip
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    return ["--manifest", str(path), "--work", str(tmp_path / "work"), "--clones",
            str(tmp_path / "clones"), "--budget", "30", "--no-doc"]  # fmt: skip


def _scored(tmp_path: Path) -> dict[str, Any]:
    row: dict[str, Any] = json.loads((tmp_path / "work" / "shop" / "result.json").read_text())[
        "row"
    ]
    return row


@pytest.mark.slow
def test_whole_run_on_a_git_project_then_resumed(tmp_path: Path, capsys: Any) -> None:
    argv = [*_manifest(tmp_path), "--workers", "0"]
    corpus.main(argv)
    row = _scored(tmp_path)
    assert row["status"] == "scored", row
    assert (row["confirmed"], row["found"], row["right_kind"], row["right_partner"]) == (1, 1, 1, 1)
    assert row["repaired"] == 1 and row["holds"] == "yes" and row["changed_lines"] > 0
    # fix runs where detect ran, with its store: the fork check is not run again
    work = tmp_path / "work" / "shop"
    assert "checking the fork runner" in (work / "detect.out").read_text()
    assert "checking the fork runner" not in (work / "fix.out").read_text()
    gone = json.loads((tmp_path / "work" / "gone" / "result.json").read_text())["row"]
    assert gone["status"] == "skipped"
    capsys.readouterr()
    corpus.main(argv)
    assert "kept from an earlier run" in capsys.readouterr().out


@pytest.mark.slow
def test_orderdep_apart_from_the_project_keeps_the_pytest_it_pins(
    tmp_path: Path, capsys: Any
) -> None:
    """``--apart``: orderdep in a venv of its own runs the project's interpreter with
    ``--python``; the project's venv keeps pytest 7.0 (orderdep itself needs 7.4), and
    the row is found and repaired as with orderdep installed into it."""
    argv = _manifest(tmp_path)
    manifest = Path(argv[argv.index("--manifest") + 1])
    data = json.loads(manifest.read_text())
    data["projects"][0]["requirements"] = ["pytest==7.0.1"]
    manifest.write_text(json.dumps(data))
    corpus.main([*argv, "--workers", "0", "--apart"])
    row = _scored(tmp_path)
    assert row["status"] == "scored", row
    assert (row["found"], row["right_kind"], row["repaired"], row["holds"]) == (1, 1, 1, "yes")
    work = tmp_path / "work" / "shop"
    project_python = work / "venv" / "bin" / "python"
    version = subprocess.run([str(project_python), "-m", "pytest", "--version"],
                             capture_output=True, text=True)  # fmt: skip
    assert "7.0.1" in version.stdout + version.stderr
    assert not (work / "venv" / "bin" / "orderdep").exists()
    assert (work / "orderdep-venv" / "bin" / "orderdep").exists()
    capsys.readouterr()


@pytest.mark.slow
def test_confirm_only_checks_rows_without_running_orderdep(tmp_path: Path, capsys: Any) -> None:
    corpus.main([*_manifest(tmp_path), "--workers", "0", "--confirm-only"])
    out = capsys.readouterr().out
    assert "confirmed only" in out and "original order (plain pytest" in out
    assert "rows confirmed now: 1 of 1" in out
    work = tmp_path / "work" / "shop"
    assert not (work / "result.json").exists()
    assert not (work / "detect-report.json").exists() and not (work / "detect.out").exists()


@pytest.mark.slow
def test_projects_run_as_tasks_of_a_given_dask_scheduler(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    # the modules the runner uploads are imported again by the scheduler, which runs in
    # this process: their names (realsetup.REPO, say) would point at its scratch copy
    modules = [sys.modules[m[:-3]] for m in corpus.MODULES]
    saved = [dict(vars(m)) for m in modules]
    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:  # fmt: skip
            corpus.main([*_manifest(tmp_path), "--dask", cluster.scheduler_address])
    finally:
        for module, names in zip(modules, saved):
            vars(module).update(names)
    row = _scored(tmp_path)
    assert (row["status"], row["found"], row["repaired"]) == ("scored", 1, 1)


def test_the_patch_is_the_python_files_that_differ(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for root, text in ((a, "x = 1\n"), (b, "x = 2\n")):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "m.py").write_text(text)
    (b / "run.log").write_text("written by a test\n" * 50)
    patch = corpus_project.python_diff(a, b)
    assert "-x = 1" in patch and "+x = 2" in patch and "run.log" not in patch


def test_a_suite_plain_pytest_cannot_run_is_not_scored() -> None:
    def run(code: int, out: str) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(["pytest"], code, out, "")

    broken = run(2, "==== 1 error in 0.73s ====\n")
    assert corpus_project.unrunnable(broken, {}) == (
        "plain pytest exited 2 with 0 test outcome(s) (1 error in 0.73s)"
    )
    assert corpus_project.unrunnable(run(5, "no tests ran in 0.01s\n"), {}) is not None
    some_failing = run(1, "1 failed, 3 passed in 0.1s\n")
    assert corpus_project.unrunnable(some_failing, {"t.py::a": "FAILED"}) is None


def test_outcomes_are_read_for_ids_with_spaces() -> None:
    import realsetup

    summary = "\n".join([
        "PASSED tests/test_conf.py::test_singleton",
        "PASSED tests/test_env.py::test_writing[env.py-ARG1 = 'VAL1'\\nARG2 = 'VAL2']",
        "FAILED tests/test_ci.py::test_yaml_ci[with yaml] - assert 1 == 0",
        "ERROR tests/test_ci.py::test_setup - RuntimeError: no - dash",
    ])  # fmt: skip
    run = subprocess.CompletedProcess([], 0, summary, "")
    # what -rA shows of a passing test's captured log comes before the summary
    logged = "\n".join([
        "____ test_send ____",
        "------ Captured log call ------",
        "ERROR    root:logger.py:25 Failed to send event; Connection refused",
        "ERROR root:logger.py:25 Failed again",
        "=========================== short test summary info ============================",
        summary,
    ])  # fmt: skip
    assert realsetup.outcomes(subprocess.CompletedProcess([], 0, logged, "")) == (
        realsetup.outcomes(run)
    )
    assert realsetup.outcomes(run) == {
        "tests/test_conf.py::test_singleton": "PASSED",
        "tests/test_env.py::test_writing[env.py-ARG1 = 'VAL1'\\nARG2 = 'VAL2']": "PASSED",
        "tests/test_ci.py::test_yaml_ci[with yaml]": "FAILED",
        "tests/test_ci.py::test_setup": "ERROR",
    }


def test_a_projects_suite_gets_a_temporary_directory_of_its_own(tmp_path: Path) -> None:
    import realsetup

    python = tmp_path / "work" / "proj" / "venv" / "bin" / "python"
    env = realsetup.venv_env(python)
    # a suite that empties its temporary directory reaches only its own
    assert env["TMPDIR"] == str(tmp_path / "work" / "proj" / "tmp")
    assert (tmp_path / "work" / "proj" / "tmp").is_dir()
    assert env["VIRTUAL_ENV"] == str(python.parent.parent)


def test_an_expected_failure_after_its_partner_counts_as_passing() -> None:
    # unittest's expectedFailure: an error in setUp alone, an expected failure after the
    # state-setter; pytest's exit status differs by the order, as for a pass
    outcomes = {("t",): "FAILED", ("s", "t"): "XFAIL", ("p", "v"): "FAILED", ("v",): "XFAIL"}

    class Tree:
        def outcome(self, order: list[str], test: str) -> str:
            return outcomes[tuple(order)]

    tree: Any = Tree()
    assert corpus_project.holds_for(tree, "brittle", "t", ["s"])
    assert corpus_project.holds_for(tree, "victim", "v", ["p"])


def _net_tree(
    root: Path, monkeypatch: pytest.MonkeyPatch, tests: dict[str, str], args: list[str]
) -> corpus_project.Tree:
    """A project whose tests (file name -> text, under ``tests/``) share ``net.NETWORK``,
    as the runner's plain pytest sees it, with the temporary directory in ``root``."""
    (root / "tests").mkdir()
    (root / "net.py").write_text("NETWORK = 'main'\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\ntestpaths = tests\n")
    for name, text in tests.items():
        (root / "tests" / name).write_text(text)
    env = {**os.environ, "TMPDIR": str(root)}  # not the runner's place beside a venv
    monkeypatch.setattr(corpus_project, "venv_env", lambda python: env)
    entry: dict[str, Any] = {"name": "net", "pytest_args": args}
    return corpus_project.Tree(entry, root, Path(sys.executable), Deadline(600))


def test_a_victim_failing_alone_in_its_own_file_is_checked_with_the_suite_collected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another test module sets the network at import: run as `pytest ID` the test fails
    alone (its own file only); with the whole suite collected it passes alone and fails
    after the test that puts the network back, as orderdep reports it."""
    tests = {
        "test_a_other.py": "import net\n\nnet.NETWORK = 'test'  # at import\n\n\n"
        "def test_other():\n    pass\n",
        "test_b_main.py": "import net\n\n\ndef test_select():\n    net.NETWORK = 'main'\n\n\n"
        "def test_needs_test():\n    assert net.NETWORK == 'test'\n",
    }
    tree = _net_tree(tmp_path, monkeypatch, tests, ["-p", "no:hypothesispytest"])
    polluter, victim = "tests/test_b_main.py::test_select", "tests/test_b_main.py::test_needs_test"
    assert tree.outcome([victim], victim) == "FAILED"  # its own file only
    assert not corpus_project.holds_for(tree, "victim", victim, [polluter])  # no suite known
    tree.suite = ["tests/test_a_other.py::test_other", polluter, victim]
    assert corpus_project.holds_for(tree, "victim", victim, [polluter])
    assert not corpus_project.holds_for(
        tree, "victim", victim, ["tests/test_a_other.py::test_other"]
    )


def test_a_brittle_failing_alone_only_with_the_suite_collected_is_confirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another test module sets the network at import (collection): run in a process
    collecting only its own file the test passes alone; with the whole suite collected,
    as in orderdep's runs and shuffled runs, it fails alone and passes after its setter."""
    tests = {
        "test_a_other.py": "import net\n\nnet.NETWORK = 'test'  # at import\n\n\n"
        "def test_other():\n    pass\n",
        "test_b_main.py": "import net\n\n\ndef test_select():\n    net.NETWORK = 'main'\n\n\n"
        "def test_main():\n    assert net.NETWORK == 'main'\n\n\n"
        "def test_main_again():\n    assert net.NETWORK == 'main'\n",
    }
    tree = _net_tree(tmp_path, monkeypatch, tests, ["-p", "no:hypothesispytest"])
    setter, test = "tests/test_b_main.py::test_select", "tests/test_b_main.py::test_main"
    assert tree.outcome([test], test) == "PASSED"  # its own file only
    assert tree.collected_alone(test) == "ABSENT"  # no suite known yet
    tree.suite = ["tests/test_a_other.py::test_other", setter, test]
    assert tree.collected_alone(test) == "FAILED"
    assert corpus_project.holds_for(tree, "brittle", test, [setter])
    assert not corpus_project.holds_for(
        tree, "brittle", test, ["tests/test_a_other.py::test_other"]
    )
    # one file's tests out of definition order cannot be run so; files can
    assert tree.collected([test, setter], setter) == "ABSENT"
    other = "tests/test_a_other.py::test_other"
    assert tree.collected([setter, other], other) == "PASSED"
    # kept by its exact id: pytest's --deselect of test_main would take test_main_again
    again = test + "_again"
    tree.suite.append(again)
    assert tree.collected_alone(again) == "FAILED"


def test_an_order_runs_as_given_when_the_manifest_names_a_test_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pytest tests B A`` collects all of ``tests`` and runs it in its own order; an
    order is run without the manifest's paths (its options stay)."""
    tests = {
        "test_a.py": "import net\n\n\ndef test_victim():\n    assert net.NETWORK == 'main'\n",
        "test_b.py": "import net\n\n\ndef test_polluter():\n    net.NETWORK = 'test'\n",
    }
    tree = _net_tree(tmp_path, monkeypatch, tests, ["tests", "-p", "no:hypothesispytest"])
    victim, polluter = "tests/test_a.py::test_victim", "tests/test_b.py::test_polluter"
    assert tree.options() == ["-p", "no:hypothesispytest"]
    assert tree.outcome([polluter, victim], victim) == "FAILED"
    assert tree.outcome([victim], victim) == "PASSED"
    assert "2 passed" in tree.run([]).stdout  # the whole suite: the manifest's arguments


def test_an_install_mode_the_runner_does_not_know_is_a_clear_stop() -> None:
    import realsetup

    assert realsetup._install_mode({"install": "wheel", "extras": ["x"]}) == [".[x]"]
    with pytest.raises(SystemExit, match="install 'regular' is none of editable, wheel, none"):
        realsetup._install_mode({"install": "regular"})


def test_a_multi_line_reason_stays_in_its_table_cell() -> None:
    why = 'cannot install x: Traceback\n  File "a.py", line 1\n    raise X | Y\n' + "z" * 400
    cell = corpus_doc.one_line(why)
    assert "\n" not in cell and "\\|" in cell and len(cell) == corpus_doc.MAX_WHY
    assert cell.startswith('cannot install x: Traceback File "a.py", line 1')


LEFTOVER = {
    "tests/test_cache.py": textwrap.dedent(
        """
        from pathlib import Path

        CACHE = Path(__file__).resolve().parents[1] / "cache.txt"

        def test_fresh():
            assert not CACHE.exists()

        def test_writes():
            CACHE.write_text("x")
        """
    ),
}


@pytest.mark.slow
def test_detect_and_fix_start_from_the_tree_the_reset_leaves(tmp_path: Path) -> None:
    """The polluter leaves a file in the checkout, which the manifest's reset removes:
    the confirming runs leave it behind, and orderdep must not start from that tree
    (the victim would fail alone there and be reported as a brittle)."""
    clone = tmp_path / "clones" / "someone+cache"
    clone.mkdir(parents=True)
    commit = _git_project(clone, LEFTOVER)
    victim, polluter = "tests/test_cache.py::test_fresh", "tests/test_cache.py::test_writes"
    manifest = {"projects": [
        {"name": "cache", "repo": "someone/cache", "commit": commit, "install": "none",
         "requirements": ["pytest"], "reset": {"remove": ["cache.txt"]},
         "known": [{"test": victim, "kind": "victim", "reproduces": True,
                    "polluters": [polluter]}]},
    ]}  # fmt: skip
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    corpus.main(["--manifest", str(path), "--work", str(tmp_path / "work"), "--clones",
                 str(tmp_path / "clones"), "--budget", "30", "--no-doc", "--workers", "0"])  # fmt: skip
    row = json.loads((tmp_path / "work" / "cache" / "result.json").read_text())["row"]
    assert (row["confirmed"], row["found"], row["right_kind"]) == (1, 1, 1), row
    assert row["unlisted"] == 0 and row["repaired"] == 1, row


def test_ids_that_change_between_processes_are_no_changed_outcome() -> None:
    before = {"t.py::test_x[a1]": "PASSED", "t.py::test_x[b2]": "PASSED", "t.py::test_y": "PASSED"}
    after = {"t.py::test_x[b2]": "PASSED", "t.py::test_x[c3]": "PASSED", "t.py::test_y": "PASSED"}
    assert corpus_project.renamed("t.py::test_x[a1]", before, after)
    assert corpus_project.renamed("t.py::test_x[c3]", before, after)
    # the function's outcomes differ: a real change, whatever the ids
    after["t.py::test_x[c3]"] = "FAILED"
    assert not corpus_project.renamed("t.py::test_x[c3]", before, after)
    assert not corpus_project.renamed("t.py::test_y", before, {})


@pytest.mark.slow
def test_a_whole_suite_run_that_hangs_is_killed_and_run_once_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A suite that hangs on its first run (a lock, a port): killed after the tree's cap,
    and its outcomes taken from a second run; one that hangs every time gives none."""
    flag = tmp_path / "ran-once"
    tests = {
        "test_hang.py": "import os, time\n\n\ndef test_first_run_hangs():\n"
        f"    if not os.path.exists({str(flag)!r}):\n"
        f"        open({str(flag)!r}, 'w').close()\n        time.sleep(60)\n",
    }
    tree = _net_tree(tmp_path, monkeypatch, tests, ["-p", "no:hypothesispytest"])
    tree.whole_cap = 8.0
    assert tree.whole() == ({"tests/test_hang.py::test_first_run_hangs": "PASSED"}, 1)
    flag.unlink()
    (tmp_path / "tests/test_hang.py").write_text(
        "import time\n\n\ndef test_always_hangs():\n    time.sleep(60)\n"
    )
    assert tree.whole() == (None, 2)
    assert corpus_project.whole_cap(2.0) == corpus_project.WHOLE_CAP_MIN
    assert corpus_project.whole_cap(30.0) == 300.0


def test_tests_failing_in_the_original_order_that_pass_after_the_patch_are_no_change(
    tmp_path: Path,
) -> None:
    """Two more victims of the polluter, failing in the original order and passing once
    it is patched, are repaired too; a test the patch makes fail is a change."""
    known = [Known("t.py::test_v", "victim", ["t.py::test_p"])]
    before = {"t.py::test_p": "PASSED", "t.py::test_v": "FAILED", "t.py::test_w": "FAILED",
              "t.py::test_x": "ERROR", "t.py::test_y": "PASSED"}  # fmt: skip
    after = {**before, "t.py::test_v": "PASSED", "t.py::test_w": "PASSED",
             "t.py::test_x": "PASSED"}  # fmt: skip
    out = Row("p", "p", rows=1)
    out.repaired = 1
    corpus_project.judge_holds(out, known, before, after, None, tmp_path)  # type: ignore[arg-type]
    assert out.holds == "yes"
    assert "also make 2 test(s) pass" in out.lines[0]
    unpatched = FakeWhole(before)
    after["t.py::test_y"] = "FAILED"
    corpus_project.judge_holds(out, known, before, after, unpatched, tmp_path)  # type: ignore[arg-type]
    assert out.holds == "no (1 outcomes changed)"


class FakeWhole:
    def __init__(self, outcomes: dict[str, str]) -> None:
        self.outcomes = outcomes

    def whole(self) -> tuple[dict[str, str], int]:
        return self.outcomes, 0
