"""Bad input never ends in a traceback: corrupt stores, unreadable reports, read-only
projects and out-of-range numbers each give one line on stderr and exit code 2."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import VICTIM, one_line

from orderdep.engine.store import Store

if TYPE_CHECKING:
    from conftest import CliRunner


# -- the results store ------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["run", "{p}", VICTIM], ["detect", "{p}", "--strategy", "reverse"]]
)
def test_a_corrupt_store_names_itself_and_the_way_out(
    od_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(od_project)
    (od_project / ".orderdep").mkdir()
    (od_project / ".orderdep" / "results.db").write_bytes(b"these are not the rows\n" * 40)
    argv = [a.replace("{p}", ".") for a in command]
    code, _, err = cli(*argv)
    assert code == 2
    assert one_line(err) == (
        "orderdep: error: the results store '.orderdep/results.db' is not a SQLite database "
        "(file is not a database); move it away or pass --store PATH"
    )
    # The way out it names works.
    code, _, err = cli(*argv, "--store", "../elsewhere.db")
    assert code in (0, 1), err
    assert Store(od_project.parent / "elsewhere.db").count() > 0


def test_a_store_that_is_a_directory(od_project: Path, cli: CliRunner) -> None:
    (od_project / ".orderdep" / "results.db").mkdir(parents=True)
    code, _, err = cli("run", od_project, VICTIM)
    assert code == 2
    line = one_line(err)
    assert "cannot open the results store" in line and "results.db" in line
    assert line.endswith("pass --store PATH to keep it in a writable place")


# -- report and dependencies files ---------------------------------------------------------


BAD_FILES = {
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "is not UTF-8 text (byte 0x89 at offset 0)"),
    "latin-1": ('{"schema": "café"}'.encode("latin-1"), "is not UTF-8 text (byte 0xe9"),
    "not json": (b"schema: orderdep.report/1\n", "is not valid JSON (line 1, column 1"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["deps", "flakerate", "classify", "debug", "fix"])
def test_a_report_that_is_not_utf8_or_not_json(
    tmp_path: Path, od_project: Path, cli: CliRunner, kind: str, command: str
) -> None:
    data, expected = BAD_FILES[kind]
    report = tmp_path / "report.json"
    report.write_bytes(data)
    extra = ["--test", VICTIM] if command == "debug" else []
    code, _, err = cli(command, od_project, "--report", report, *extra)
    assert code == 2
    line = one_line(err)
    assert f"report {str(report)!r} {expected}" in line
    assert "re-create it" in line


# -- numbers -----------------------------------------------------------------------------

SEED_RANGE = "is not in the range 0<=x<=9223372036854775807"
BAD_NUMBERS = [
    (["detect", "--budget", "nan"], "'nan' is not a number of seconds"),
    (["detect", "--budget", "inf"], "'inf' is not a number of seconds"),
    (["detect", "--budget", "-5"], "'-5' is not a number of seconds"),
    (["detect", "--budget", "0"], "'0' is not a number of seconds"),
    (["detect", "--budget", "1e9"], "'1e9' is not a number of seconds"),
    (["detect", "--timeout", "nan"], "'nan' is not a number of seconds"),
    (["run", "--timeout", "-inf", VICTIM], "'-inf' is not a number of seconds"),
    (["detect", "--seed", str(2**70)], f"{2**70} {SEED_RANGE}"),
    (["detect", "--seed", "-1"], f"-1 {SEED_RANGE}"),
    (["detect", "--seed", "1.5"], "'1.5' is not a valid integer"),
    (["detect", "--rounds", "-1"], "-1 is not in the range 0<=x<=1000000"),
    (["detect", "--max-orders", str(2**64)], f"{2**64} is not in the range 1<=x<=1000000"),
    (["detect", "--confirm-runs", "-2"], "-2 is not in the range 0<=x<=1000000"),
    (["detect", "-j", "0"], "0 is not in the range 1<=x<=1024"),
    (["run", "--jobs", "99999", VICTIM], "99999 is not in the range 1<=x<=1024"),
    (["flakerate", "--samples", "0"], "0 is not in the range 1<=x<=1000000"),
    (["flakerate", "--seed", str(2**63)], f"{2**63} {SEED_RANGE}"),
    (["classify", "--alone-runs", "0"], "0 is not in the range 1<=x<=1000000"),
    (["pradet", "--extra-orders", "-1"], "-1 is not in the range 0<=x<=1000000"),
    (["pradet", "collect", "--seed", str(2**70)], f"{2**70} {SEED_RANGE}"),
    (["pradet", "refine", "--confirm-runs", "-1"], "-1 is not in the range 0<=x<=1000000"),
    (["pradet", "run", "--alone-runs", "0"], "0 is not in the range 1<=x<=1000000"),
    (["evaluate", "--machines", "0"], "0 is not in the range 1<=x<=1000000"),
    (["evaluate", "--changes", "0"], "0 is not in the range 1<=x<=1000000"),
    (["evaluate", "--repeat", str(10**7)], "10000000 is not in the range 1<=x<=1000000"),
    (["evaluate", "--seed", str(2**70)], f"{2**70} {SEED_RANGE}"),
    (["parallelize", "-a", "P1", "--machines", str(2**70)], "is not in the range 1<=x<=1000000"),
    (["coverage", "--timeout", "inf"], "'inf' is not a number of seconds"),
]


@pytest.mark.parametrize(
    ("argv", "expected"), BAD_NUMBERS, ids=[" ".join(a[:3]) for a, _ in BAD_NUMBERS]
)
def test_numbers_out_of_range_are_refused_in_one_line(
    od_project: Path, cli: CliRunner, argv: list[str], expected: str
) -> None:
    code, out, err = cli(*argv, str(od_project))
    assert code == 2 and out == ""
    line = one_line(err)
    assert expected in line
    # It names what to read next, and that command works.
    parts = shlex.split(line.rsplit("see `", 1)[1].rstrip("`"))
    assert parts[:2] == ["orderdep", argv[0]] and parts[-1] == "--help"
    code, out, _ = cli(*parts[1:])
    assert code == 0 and "Usage:" in out
    assert not (od_project / ".orderdep").exists()  # refused before anything ran


def test_the_largest_seed_is_stored(od_project: Path, cli: CliRunner) -> None:
    code, _, err = cli("detect", od_project, "--strategy", "reverse", "--seed", 2**63 - 1)
    assert code == 1, err
    assert f"seed {2**63 - 1}" in err
    assert Store(od_project / ".orderdep" / "results.db").count() >= 2


def test_non_finite_durations_are_refused(tmp_path: Path) -> None:
    from orderdep.analysis.regression.coverage import load_durations
    from orderdep.errors import ReportError

    for text in ('{"t": NaN}', '{"t": Infinity}', '{"t": -1}'):
        path = tmp_path / "d.json"
        path.write_text(text)
        with pytest.raises(
            ReportError, match=r"non-negative number of seconds \(not infinite or NaN\)"
        ):
            load_durations(path)


# -- the store's lock ----------------------------------------------------------------------


def test_a_second_command_on_a_locked_store_names_the_holder(
    od_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orderdep.engine import storelock

    monkeypatch.setattr(storelock, "WAIT_SECONDS", 0.2)
    store = od_project / ".orderdep" / "results.db"
    holder = storelock.StoreLock.acquire(store, "orderdep detect . --seed 3", wait=0)
    try:
        code, _, err = cli("run", od_project, VICTIM)
        assert code == 2
        assert one_line(err) == (
            f"orderdep: error: the results store {str(store)!r} is in use by process "
            f"{os.getpid()} (orderdep detect . --seed 3) (waited 0.2 s); wait for it to "
            "finish or pass --store PATH"
        )
        code, _, err = cli("run", od_project, VICTIM, "--store", od_project.parent / "other.db")
        assert code == 0, err
    finally:
        holder.release()
    code, _, err = cli("run", od_project, VICTIM)
    assert code == 0, err
    # The command released it, and wrote who it was while it held it.
    storelock.StoreLock.acquire(store, "next", wait=0).release()
    assert Store(store).count() == 1
