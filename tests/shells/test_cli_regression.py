"""``orderdep coverage|prioritize|select|parallelize|evaluate`` through ``main(argv)``."""

from __future__ import annotations

import json
import shlex
import textwrap
from pathlib import Path

import pytest
from clitools import git

from orderdep.analysis.regression.coverage import CoverageData, load_coverage, save_coverage
from orderdep.shells.cli import main

A, B, C, D, E = (f"tests/test_m.py::test_{x}" for x in "abcde")
# a: state-setter of b (brittle); c: victim of d (polluter); e: independent.
DEPS = {
    "schema": "orderdep.deps/1",
    "dependencies": [
        {"test": B, "kind": "positive", "dependee": A},
        {"test": C, "kind": "negative", "dependee": D},
    ],
}


def _project(tmp_path: Path, deps: bool = True) -> Path:
    """A project with coverage data written directly (no tests run)."""
    lines = {A: [1], B: [10, 11, 12, 13], C: [20, 21], D: [30, 31, 32], E: [40, 41, 42, 43, 44]}
    data = CoverageData(
        tests=[A, B, C, D, E],
        statements={t: {"app.py": ls} for t, ls in lines.items()},
        functions={t: {"app.py": [f"f{ls[0] // 10}"]} for t, ls in lines.items()},
        durations={A: 1.0, B: 2.0, C: 1.0, D: 3.0, E: 1.5},
        function_ranges={"app.py": [(f"f{i}", 10 * i, 10 * i + 9) for i in range(5)]},
    )
    save_coverage(tmp_path / ".orderdep" / "coverage.json", data)
    if deps:
        (tmp_path / "orderdep-deps.json").write_text(json.dumps(DEPS), encoding="utf-8")
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_prioritize_enhanced_and_not(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = str(_project(tmp_path))
    code, out, err = _run(capsys, "prioritize", project, "--algorithm", "T1", "--no-enhance")
    assert code == 0
    assert out == [E, B, D, C, A]  # total statement coverage, most first
    code, out, err = _run(capsys, "prioritize", project, "-a", "t1")
    assert code == 0
    assert out == [E, A, B, C, D]  # the victim before its polluter, the setter before the brittle
    assert err == "orderdep: T1: added 0 tests, moved 2 to satisfy 2 dependencies\n"


def test_prioritize_without_deps_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "prioritize", str(_project(tmp_path, deps=False)), "-a", "T2")
    assert code == 0 and out == [E, B, D, C, A]
    assert "no dependencies file" in err


def test_select_from_a_diff_adds_the_state_setter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    diff = tmp_path / "change.diff"
    diff.write_text(
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -11 +11 @@\n-x = 1\n+x = 2\n"
    )
    code, out, err = _run(capsys, "select", str(project), "-a", "S1", "--diff", str(diff))
    assert code == 0
    assert out == [A, B]
    assert "1 changed line(s) in 1 file(s) --diff" in err
    assert "S1 selected 1 of 5 tests" in err
    assert "orderdep: S1: added 1 test, moved 0 to satisfy 1 dependency" in err
    code, out, _ = _run(
        capsys, "select", str(project), "-a", "S4", "--diff", str(diff), "--no-enhance"
    )
    assert out == [B]


def test_select_uses_git_diff_against_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path / "repo")
    app = project / "app.py"
    app.write_text("".join(f"line{i}\n" for i in range(1, 50)))
    git(project, "init", "-q")
    git(project, "add", "app.py")
    git(project, "commit", "-q", "-m", "base")
    text = app.read_text().replace("line31\n", "changed\n")
    app.write_text(text)
    code, out, err = _run(capsys, "select", str(project), "-a", "S2")
    assert code == 0 and out == [D]
    assert "since HEAD" in err
    code, out, err = _run(capsys, "select", str(project), "-a", "S2", "--base", "nosuchrev")
    assert code == 2
    assert "`git diff -U0 nosuchrev` failed" in err


def test_parallelize_sections_files_and_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = str(_project(tmp_path))
    code, out, err = _run(capsys, "parallelize", project, "-a", "P1", "--machines", "2")
    assert code == 0
    assert out == [
        "# machine 1: 3 tests, estimated 3.50s",
        A,
        C,
        E,
        "# machine 2: 3 tests, estimated 6.00s",
        A,
        B,
        D,
    ]
    assert "P1 machine 2: added 1 test" in err
    outdir = tmp_path / "machines"
    code, out, err = _run(
        capsys,
        "parallelize",
        project,
        "-a",
        "groups",
        "--machines",
        "2",
        "--output-dir",
        str(outdir),
    )
    assert code == 0
    files = sorted(outdir.iterdir())
    assert [f.name for f in files] == ["machine-1.txt", "machine-2.txt"]
    orders = [f.read_text().split() for f in files]
    assert sorted(t for o in orders for t in o) == sorted([A, B, C, D, E])  # each once
    assert out[0] == f"wrote {files[0]} ({len(orders[0])} tests, estimated 4.00s)"
    code, _, err = _run(capsys, "parallelize", project, "-a", "groups", "--no-enhance")
    assert code == 2 and "use --algorithm P2 --no-enhance" in err


def test_bad_inputs_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "prioritize", str(tmp_path), "-a", "T1")
    assert code == 2 and "run `orderdep coverage`" in err
    project = _project(tmp_path)
    bad = dict(
        DEPS, dependencies=[{"test": "tests/test_m.py::test_z", "kind": "positive", "dependee": A}]
    )
    (project / "orderdep-deps.json").write_text(json.dumps(bad))
    code, _, err = _run(capsys, "prioritize", str(project), "-a", "T1")
    assert code == 2 and "'tests/test_m.py::test_z'" in err
    code, _, err = _run(capsys, "prioritize", str(project), "-a", "T9")
    assert code == 2 and "'T9' is not one of" in err


PROJECT_FILES = {
    "app/__init__.py": "",
    "app/store.py": """\
        DATA = {}


        def put(key, value):
            DATA[key] = value


        def get(key):
            return DATA.get(key)


        def total(values):
            return sum(values)
        """,
    "tests/test_store.py": """\
        from app import store


        def test_setup_user():
            store.put("user", "ann")


        def test_read_user():
            assert store.get("user") == "ann"


        def test_clean_flag():
            assert store.get("flag") is None


        def test_raise_flag():
            store.put("flag", True)


        def test_total():
            assert store.total([1, 2, 3]) == 6
        """,
}
REAL_DEPS = {
    "schema": "orderdep.deps/1",
    "dependencies": [
        {
            "test": "tests/test_store.py::test_read_user",
            "kind": "positive",
            "dependee": "tests/test_store.py::test_setup_user",
        },
        {
            "test": "tests/test_store.py::test_clean_flag",
            "kind": "negative",
            "dependee": "tests/test_store.py::test_raise_flag",
        },
    ],
}


def test_coverage_and_evaluate_on_a_real_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for rel, text in PROJECT_FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (tmp_path / "orderdep-deps.json").write_text(json.dumps(REAL_DEPS))
    code, out, _ = _run(capsys, "coverage", str(tmp_path))
    assert code == 0
    assert out[0].startswith("5 tests cover ")
    assert out[-1] == f"wrote {tmp_path / '.orderdep' / 'coverage.json'}"
    data = load_coverage(tmp_path / ".orderdep" / "coverage.json")
    assert data.functions["tests/test_store.py::test_total"]["app/store.py"] == ["total"]

    argv = ["evaluate", str(tmp_path), "-a", "T2", "-a", "S1", "-a", "P1", "--machines", "2"]
    code, out, err = _run(capsys, *argv, "--changes", "2", "--seed", "1")
    assert code == 0  # the enhanced orders have no OD-test failures
    rows = {line.split()[0]: line.split() for line in out[1:4]}
    # P1 puts setup_user and read_user on different machines: the brittle fails unenhanced.
    assert rows["P1"][4:7] == ["1", "0", "100%"]
    assert rows["T2"][5] == "0"
    assert "running " in err
    saved = json.loads((tmp_path / ".orderdep" / "evaluation.json").read_text())
    assert saved["schema"] == "orderdep.evaluation/1"  # what `orderdep report` shows
    assert [r["algorithm"] for r in saved["algorithms"]] == ["T2", "S1", "P1"]
    reproduce = out[-1]
    assert reproduce.startswith("reproduce: orderdep evaluate ")
    # The printed command works and gives the same table.
    code2, out2, _ = _run(capsys, *shlex.split(reproduce.split(": ", 1)[1])[1:])
    assert code2 == 0
    assert [line.split()[:7] for line in out2[1:4]] == [line.split()[:7] for line in out[1:4]]
