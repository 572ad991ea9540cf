"""``orderdep pradet`` through ``main(argv)`` on generated projects; printed commands fed back."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from orderdep.core.report import load_report
from orderdep.shells.cli import main
from orderdep.synth.generate import SuitePlan, generate_suite
from orderdep.synth.truth import GroundTruth

PLAN = SuitePlan(
    channels=("module_dict", "env_var"),
    channel_cleaners=False,
    many_cleaners=0,
    two_polluters=False,
    polluter_group=False,
    brittles_one_setter=1,
    brittle_two_setters=False,
    brittle_setter_group=False,
    nd_tests=0,
    nio_tests=0,
)


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, GroundTruth]:
    root = tmp_path / "shop"
    truth = generate_suite(root, n_tests=16, seed=5, plan=PLAN)
    return root, truth


def expected_deps(truth: GroundTruth) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    for spec in truth.specs:
        kind = "negative" if spec.kind == "victim" else "positive"
        for dependee in spec.polluters + spec.state_setters:
            out.add((spec.test, kind, dependee))
    return out


def printed(output: str, label: str) -> list[str]:
    """Commands printed after ``label: `` (one per line)."""
    out = []
    for line in output.splitlines():
        head, _, command = line.strip().partition(": ")
        if head == label and command.startswith("orderdep "):
            out.append(command)
    return out


def feed_back(command: str) -> int:
    parts = shlex.split(command)
    assert parts[0] == "orderdep"
    return main(parts[1:])


def test_pradet_writes_findings_and_the_printed_commands_work(
    project: tuple[Path, GroundTruth], capsys: pytest.CaptureFixture[str]
) -> None:
    root, truth = project
    assert main(["pradet", str(root)]) == 1
    out = capsys.readouterr().out
    assert "PRADET: 16 tests; reference order: original" in out
    assert "collection: 2 probed run(s) (reference and reversed), 32 test executions" in out
    assert "roots with most writers:" in out
    assert f"manifest dependencies confirmed: {len(truth.specs)}\n" in out
    report = load_report(root / ".orderdep" / "report.json")
    assert sorted(report.od_ids) == sorted(truth.od_tests)
    for finding in report.od_tests:
        spec = truth.spec(finding.test)
        assert finding.kind == spec.kind
        assert finding.polluters == spec.polluters
        assert finding.state_setters == spec.state_setters
        assert finding.extras["pradet"]["dependencies"][0]["roots"]
    extra = report.extras["pradet"]
    assert extra["data_dependencies"] and extra["roots"]
    assert extra["executions"]["total"] == report.stats.test_executions
    assert (root / ".orderdep" / "pradet.json").exists()

    reproduce = printed(out, "reproduce")
    assert len(reproduce) == len(truth.specs)
    victim = next(s.test for s in truth.specs if s.kind == "victim")
    [command] = [c for c in reproduce if c.endswith(shlex.quote(victim))]
    assert feed_back(command) == 1  # the failing order really fails
    capsys.readouterr()
    [deps_command] = printed(out, "write the dependencies file")
    assert deps_command == shlex.join(["orderdep", "deps", str(root)])
    assert feed_back(deps_command) == 0
    written = json.loads((root / "orderdep-deps.json").read_text())
    found = {(d["test"], d["kind"], d["dependee"]) for d in written["dependencies"]}
    assert found == expected_deps(truth)


def test_collect_explain_refine_step_by_step(
    project: tuple[Path, GroundTruth], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, truth = project
    graph = tmp_path / "graph.json"
    argv = ["pradet", "collect", str(root), "--graph", str(graph), "--extra-orders", "1"]
    assert main([*argv, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"collection: {graph}" in out
    assert "3 probed run(s) (reference, reversed and random-1; seed 3)" in out
    [refine_command] = printed(out, "refine it")
    assert refine_command == shlex.join(
        ["orderdep", "pradet", "refine", str(root), "--graph", str(graph)]
    )

    victim = next(s for s in truth.specs if s.kind == "victim")
    assert main(["pradet", "explain", str(root), victim.test, "--graph", str(graph)]) == 0
    out = capsys.readouterr().out
    assert f"reference order, position {truth.tests.index(victim.test) + 1} of 16" in out
    reversed_part = out.split("reversed order")[1]
    assert "data-depends on: " in reversed_part and victim.polluters[0] in reversed_part

    report = tmp_path / "pradet-report.json"
    argv = [*shlex.split(refine_command)[1:], "--report", str(report), "--jobs", "2"]
    argv += ["--alone-runs", "3"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    [deps_command] = printed(out, "write the dependencies file")
    assert deps_command.endswith(shlex.join(["--report", str(report)]))
    target = tmp_path / "deps.json"
    assert feed_back(f"{deps_command} --output {shlex.quote(str(target))}") == 0
    found = {
        (d["test"], d["kind"], d["dependee"])
        for d in json.loads(target.read_text())["dependencies"]
    }
    assert found == expected_deps(truth)
    assert not (root / ".orderdep" / "report.json").exists()


def test_default_project_and_no_reverse_finds_only_the_brittle(
    project: tuple[Path, GroundTruth],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, truth = project
    monkeypatch.chdir(root)
    assert main(["pradet", "--no-also-reverse"]) == 1
    out = capsys.readouterr().out
    assert "collection: 1 probed run(s) (reference)" in out
    assert "manifest dependencies confirmed: 1\n" in out
    brittle = next(s for s in truth.specs if s.kind == "brittle")
    report = load_report(root / ".orderdep" / "report.json")
    assert report.od_ids == [brittle.test]
    assert printed(out, "write the dependencies file") == ["orderdep deps ."]


def test_errors_say_what_to_do(
    project: tuple[Path, GroundTruth], capsys: pytest.CaptureFixture[str]
) -> None:
    root, truth = project
    assert main(["pradet", "refine", str(root)]) == 2
    assert "`orderdep pradet collect`" in capsys.readouterr().err
    assert main(["pradet", "explain", str(root), "tests/x.py::t"]) == 2
    assert "`orderdep pradet collect`" in capsys.readouterr().err
    graph = root / ".orderdep" / "pradet.json"
    graph.parent.mkdir()
    broken = {"schema": "orderdep.pradet/1", "project": str(root), "collections": [{}]}
    graph.write_text(json.dumps(broken))
    assert main(["pradet", "refine", str(root)]) == 2
    assert "is malformed" in capsys.readouterr().err
    order = root / "order.txt"
    order.write_text(f"{truth.tests[0]}\n{truth.tests[0]}\n")
    assert main(["pradet", str(root), "--order-file", str(order)]) == 2
    assert "more than once" in capsys.readouterr().err
    assert main(["pradet", "--help"]) == 0
    out = capsys.readouterr().out
    assert "orderdep pradet [PROJECT]" in out and "explain" in out


def test_explain_suggests_close_test_ids(
    project: tuple[Path, GroundTruth], capsys: pytest.CaptureFixture[str]
) -> None:
    root, truth = project
    assert main(["pradet", "collect", str(root), "--no-also-reverse"]) == 0
    capsys.readouterr()
    typo = truth.tests[3][:-1]
    assert main(["pradet", "explain", str(root), typo]) == 2
    err = capsys.readouterr().err
    assert f"did you mean {truth.tests[3]!r}" in err
    assert main(["pradet", "explain", str(root), "a", "b", "c"]) == 2


def test_a_counter_every_test_writes_is_linked_to_its_last_writer_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clitools import write_files

    tests = "\n\n".join(f"def test_make_{i}():\n    ids.new()" for i in range(24))
    files = {
        "pytest.ini": "[pytest]\n",
        "app/__init__.py": "",
        "app/ids.py": "NEXT = 0\n\n\ndef new():\n    global NEXT\n    NEXT += 1\n    return NEXT\n",
        "tests/test_ids.py": f"from app import ids\n\n\n{tests}\n\n\ndef test_read():\n    assert ids.NEXT >= 0\n",
    }
    project = write_files(tmp_path / "p", files)
    assert main(["pradet", str(project), "--budget", "120", "--no-check"]) in (0, 1)
    out = capsys.readouterr().out
    assert (
        "written by more than 20 tests, so each reader is linked to the last writer only: app.ids.NEXT (24 writers)"
        in out
    )
    (line,) = [x for x in out.splitlines() if x.startswith("data dependencies:")]
    # each test reads the counter it increments: the first 20 readers depend on every
    # earlier writer (1 + 2 + ... + 20), the 4 readers after them on the last writer only,
    # not on all of them (1 + 2 + ... + 24 = 300)
    assert "(reference 214," in line, line
