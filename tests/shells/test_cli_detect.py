"""``orderdep detect`` and ``orderdep flakerate`` through ``main(argv)`` on real projects.

Every command the summary prints is fed back into ``main()`` and must do what it says.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import textwrap
from pathlib import Path

import pytest

from orderdep.core.report import ODFinding, Report, load_report, save_report
from orderdep.shells.cli import main

VICTIM, POLLUTER = "tests/test_a.py::test_victim", "tests/test_a.py::test_polluter"
SETTER, BRITTLE = "tests/test_b.py::test_setter", "tests/test_b.py::test_brittle"
ND, ONCE = "tests/test_c.py::test_coin", "tests/test_c.py::test_once"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A victim + polluter, a brittle + state-setter, an ND test and an NIO test."""
    return write(
        tmp_path / "proj",
        {
            "pytest.ini": "[pytest]\n",
            "tests/shared.py": "polluted = False\nready = False\n",
            "tests/test_a.py": """
                import shared

                def test_victim():
                    assert not shared.polluted

                def test_polluter():
                    shared.polluted = True
            """,
            "tests/test_b.py": """
                import shared

                def test_setter():
                    shared.ready = True

                def test_brittle():
                    assert shared.ready
            """,
            # The ND test fails every other time it runs, in any order (its counter
            # lives outside the project, so no sandbox puts it back): never lucky.
            "tests/test_c.py": f"""
                from pathlib import Path

                SEEN = []
                RUNS = Path({str(tmp_path / "coin-runs")!r})

                def test_coin():
                    n = int(RUNS.read_text()) if RUNS.exists() else 0
                    RUNS.write_text(str(n + 1))
                    assert n % 2 == 0

                def test_once():
                    SEEN.append(1)
                    assert len(SEEN) == 1
            """,
        },
    )


def reproduce_commands(out: str) -> dict[str, str]:
    """test id -> the command printed after it."""
    found: dict[str, str] = {}
    current = ""
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            current = line.strip().split("  [")[0]
        elif line.strip().startswith("reproduce: "):
            found[current] = line.strip()[len("reproduce: ") :]
    return found


def feed_back(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    argv = shlex.split(command)
    assert argv[0] == "orderdep"
    code = main(argv[1:])
    return code, capsys.readouterr().out


def last_outcome(run_output: str, test: str) -> str:
    rows = [line.split() for line in run_output.splitlines() if line.endswith(test)]
    return rows[-1][1]


def test_detect_finds_od_nd_nio_and_every_printed_command_reproduces(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    strategies = ["--strategy", "tuscan", "--strategy", "isolation", "--strategy", "nio"]
    assert main(["detect", str(project), "--seed", "11", *strategies]) == 1
    captured = capsys.readouterr()
    assert "orderdep: seed 11 (rerun with --seed 11)" in captured.err
    report = load_report(project / ".orderdep" / "report.json")
    assert sorted(report.od_ids) == sorted([VICTIM, BRITTLE])
    assert report.nio_tests == [ONCE]
    assert report.nd_tests == [ND]
    assert report.always_failing == []
    assert report.stats.seed == 11 and report.stats.strategies == [
        "original",
        "tuscan",
        "isolation",
        "nio",
    ]
    assert report.stats.extras["stopped_early"] is False
    victim = report.finding(VICTIM)
    assert victim is not None and victim.failing_order == [POLLUTER, VICTIM]
    assert victim.passing_order == [VICTIM]
    brittle = report.finding(BRITTLE)
    assert brittle is not None and brittle.failing_order == [BRITTLE]

    out = captured.out
    assert "2 order-dependent tests:" in out
    assert "1 test non-deterministic" in out and ND in out
    commands = reproduce_commands(out)
    assert set(commands) == {VICTIM, BRITTLE, ONCE}
    assert commands[VICTIM] == f"orderdep run {project} {POLLUTER} {VICTIM}"
    for test, command in commands.items():
        code, run_out = feed_back(command, capsys)
        assert code == 1, (command, run_out)
        assert last_outcome(run_out, test) == "failed"


@pytest.fixture
def far_project(tmp_path: Path) -> Path:
    """The victim fails once nine tests, far from it, have each bumped a counter under
    src/: its minimal failing order is ten tests long."""
    fillers = "".join(f"\ndef test_filler_{i}():\n    pass\n" for i in range(10))
    bumps = "".join(f"\ndef test_bump_{i}():\n    state.count += 1\n" for i in range(9))
    return write(
        tmp_path / "far",
        {
            "pytest.ini": "[pytest]\n",
            "src/state.py": "count = 0\n",
            "tests/test_far.py": "import state\n\ndef test_victim():\n    assert state.count < 9\n"
            + fillers
            + bumps,
        },
    )


def test_long_failing_order_goes_to_an_order_file_and_extra_options_are_kept(
    far_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["detect", str(far_project), "--pythonpath", "src", "--strategy", "reverse"]
    assert main([*argv, "--seed", "1", "--confirm-runs", "1"]) == 1
    out = capsys.readouterr().out
    commands = reproduce_commands(out)
    victim = "tests/test_far.py::test_victim"
    command = commands[victim]
    parts = shlex.split(command)
    assert parts[:5] == ["orderdep", "run", str(far_project), "--pythonpath", "src"]
    assert parts[5] == "--order-file"
    order_file = Path(parts[6])
    assert order_file.parent == far_project / ".orderdep" / "orders"
    lines = order_file.read_text().splitlines()
    assert lines[0].startswith("# failing order of tests/test_far.py::test_victim")
    assert lines[1:-1] == [f"tests/test_far.py::test_bump_{i}" for i in reversed(range(9))]
    assert lines[-1] == victim
    code, run_out = feed_back(command, capsys)
    assert code == 1 and last_outcome(run_out, victim) == "failed"


def test_a_rerun_of_the_same_command_resumes_without_running_orders(
    far_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["detect", str(far_project), "--pythonpath", "src", "--seed", "5", "--confirm-runs", "1"]
    assert main(argv) == 1
    first = capsys.readouterr()
    assert main(argv) == 1
    second = capsys.readouterr()
    assert "resumed:" in second.err and ", 0 run now" in second.err
    assert "resumed:" not in first.err
    assert "running tuscan" in first.err  # the default strategy, named
    assert reproduce_commands(first.out) == reproduce_commands(second.out)


def test_nothing_order_dependent_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(
        tmp_path / "clean",
        {"test_x.py": "def test_one():\n    pass\n\ndef test_two():\n    assert 1\n"},
    )
    assert main(["detect", str(root), "--strategy", "reverse", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "no order-dependent tests found" in out
    assert "original + reverse: " in out
    assert load_report(root / ".orderdep" / "report.json").od_tests == []


def test_always_failing_and_max_orders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write(
        tmp_path / "broken",
        {"test_x.py": "def test_bad():\n    assert 0\n\ndef test_ok():\n    pass\n"},
    )
    report_file = tmp_path / "out" / "r.json"
    argv = ["detect", str(root), "--strategy", "pairs", "--max-orders", "2", "--seed", "1"]
    # --max-orders cut the pairs' plan: not a clean result
    assert main([*argv, "--report", str(report_file)]) == 3
    out = capsys.readouterr().out
    assert "1 test always failing (also alone):\n  test_x.py::test_bad" in out
    assert "search stopped early (max-orders)" in out
    assert "pairs: 1 of 2 planned orders ran (--max-orders was reached)" in out
    report = load_report(report_file)
    assert report.always_failing == ["test_x.py::test_bad"]
    assert report.stats.extras["search_orders"] == 2


def test_the_estimate_prices_the_set_up_each_process_pays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every test reads a table the first reader in a process builds (0.2 s), as a real
    suite parses a data file on first use. The original order pays it once; each of
    tuscan's orders (one test per module) pays it again. The notice prices tuscan from
    the short ``timing`` orders too, so at 0.2 s per order at least; from the original
    order alone it said about 12 x 0.02 s per order (3 modules of 4 tests: 0.2 s spread
    over 12 tests, 4 tests per order)."""
    files = {
        "pytest.ini": "[pytest]\n",
        "tests/table.py": """
            import time

            _ROWS = None

            def rows():
                global _ROWS
                if _ROWS is None:
                    time.sleep(0.2)
                    _ROWS = [1, 2, 3]
                return _ROWS
        """,
    }
    for m in range(3):
        body = "".join(f"def test_{k}():\n    assert table.rows()\n\n" for k in range(4))
        files[f"tests/test_m{m}.py"] = "import table\n\n" + body
    root = write(tmp_path / "table", files)
    argv = ["detect", str(root), "--max-orders", "6", "--jobs", "1", "--seed", "1"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "search: timing (3 order(s))" in err
    assert "original + timing + random-reverse: " in out
    assert "coverage of timing" not in out  # they promise no coverage
    found = re.search(r"tuscan needs ~(\d+) orders, ~(\d+) s estimated", err)
    assert found is not None, err
    orders, seconds = int(found.group(1)), int(found.group(2))
    assert orders > 12
    assert seconds >= 0.8 * 0.2 * orders
    report = load_report(root / ".orderdep" / "report.json")
    assert report.stats.strategies == ["original", "timing", "random-reverse"]


def test_usage_and_collection_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(tmp_path / "p", {"test_x.py": "def test_one():\n    pass\n"})
    assert main(["detect", str(root), "--strategy", "shuffle"]) == 2
    assert "'shuffle' is not one of" in capsys.readouterr().err
    bad = write(tmp_path / "bad", {"test_y.py": "def test_one(:\n    pass\n"})
    assert main(["detect", str(bad), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "orderdep: seed 1" in err and "orderdep: error:" in err


def test_detect_classify_then_flakerate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write(
        tmp_path / "cls",
        {
            "tests/shared.py": "polluted = False\n",
            "tests/test_a.py": """
                import shared

                def test_victim():
                    assert not shared.polluted

                def test_polluter():
                    shared.polluted = True

                def test_other():
                    pass
            """,
        },
    )
    victim = "tests/test_a.py::test_victim"
    argv = ["detect", str(root), "--seed", "3", "--confirm-runs", "1", "--classify"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert f"{victim}  [victim]" in out
    path = root / ".orderdep" / "report.json"
    finding = load_report(path).finding(victim)
    assert finding is not None and finding.kind == "victim"
    assert finding.polluters == ["tests/test_a.py::test_polluter"]
    assert finding.flake_rate["all"] == pytest.approx(0.5)  # π/(π+γ+1), 004 §4.2

    # flakerate recomputes them (here with another seed and few samples)
    data = json.loads(path.read_text())
    data["od_tests"][0]["flake_rate"] = {"all": None, "grouped": None, "reverse": None}
    path.write_text(json.dumps(data))
    assert main(["flakerate", str(root), "--samples", "200", "--seed", "9"]) == 0
    out = capsys.readouterr().out
    assert victim in out and "50.0%" in out
    rates = load_report(path).od_tests[0].flake_rate
    assert rates["all"] == pytest.approx(0.5) and rates["reverse"] == pytest.approx(1.0)


def test_flakerate_needs_classified_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    report = Report(
        project=str(root.resolve()),
        tests=["t.py::a", "t.py::b"],
        od_tests=[ODFinding("t.py::b", failing_order=["t.py::a", "t.py::b"])],
    )
    save_report(root / ".orderdep" / "report.json", report)
    assert main(["flakerate", str(root)]) == 2
    assert "is classified yet" in capsys.readouterr().err
    assert main(["flakerate", str(tmp_path / "nowhere")]) == 2
    assert "orderdep detect" in capsys.readouterr().err


@pytest.mark.slow
def test_a_copy_of_the_project_with_its_store_resumes_too(
    far_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--pythonpath", "src", "--seed", "5", "--confirm-runs", "1"]
    assert main(["detect", str(far_project), *argv]) == 1
    first = capsys.readouterr()
    # another path and new mtimes (copied without metadata), as a clone would have
    copy = Path(shutil.copytree(far_project, tmp_path / "copy", copy_function=shutil.copy))
    assert main(["detect", str(copy), *argv]) == 1
    second = capsys.readouterr()
    assert "resumed:" in second.err and ", 0 run now" in second.err
    assert reproduce_commands(second.out) == {
        test: command.replace(str(far_project), str(copy))
        for test, command in reproduce_commands(first.out).items()
    }
