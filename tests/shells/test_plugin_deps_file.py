"""A dependencies file is a hint: the plugin skips entries naming tests the suite no longer
has (one warning line), unless told to be strict; ``orderdep deps --check`` lists them;
an unreadable file is a usage error, never an INTERNALERROR."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import one_line

if TYPE_CHECKING:
    from conftest import CliRunner

QUIET = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-p", "no:randomly")
TESTS = """
S = {}
def test_setter(): S["set"] = True
def test_brittle(): assert S.get("set")
def test_other(): pass
"""
SETTER, BRITTLE, OTHER = (
    "test_a.py::test_setter",
    "test_a.py::test_brittle",
    "test_a.py::test_other",
)
GONE_VICTIM, GONE_SETTER = "test_a.py::test_victim_renamed", "test_a.py::test_setter_old"


def deps_json(*stale: bool) -> str:
    entries = [{"test": BRITTLE, "kind": "positive", "dependee": SETTER}]
    if stale:
        entries += [
            {"test": GONE_VICTIM, "kind": "negative", "dependee": OTHER},
            {"test": BRITTLE, "kind": "positive", "dependee": GONE_SETTER},
        ]
    return json.dumps({"schema": "orderdep.deps/1", "dependencies": entries})


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")  # for deps --check
    pytester.makepyfile(test_a=TESTS)
    pytester.path.joinpath("deps.json").write_text(deps_json(True), encoding="utf-8")
    return pytester


def warnings_of(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("orderdep: warning")]


def printed_command(line: str) -> list[str]:
    argv = shlex.split(re.findall(r"`([^`]*)`", line)[-1])
    assert argv[0] == "orderdep"
    return argv[1:]


def test_unknown_ids_are_skipped_with_one_warning_line(
    suite: pytest.Pytester, cli: CliRunner
) -> None:
    # -k keeps only the brittle; the known entry still brings its state-setter back.
    result = suite.runpytest(*QUIET, "-k", "brittle", "--orderdep-deps", "deps.json")
    assert result.ret == 0
    result.assert_outcomes(passed=2, deselected=1)
    (warning,) = warnings_of(result)
    assert warning == (
        "orderdep: warning: dependencies file 'deps.json' names 2 test(s) this suite does "
        f"not have ({GONE_VICTIM}, {GONE_SETTER}); skipped 2 entries; list them with "
        "`orderdep deps --check --deps deps.json`"
    )
    result.stdout.fnmatch_lines(["orderdep: added 1 test, moved 0 to satisfy 1 dependency"])

    code, out, err = cli(*printed_command(warning))
    assert code == 1, err
    assert out.splitlines() == [
        "deps.json: 2 of 3 entries name tests that are not collected:",
        f"  {GONE_VICTIM}  negative  {OTHER}",
        f"      not collected: {GONE_VICTIM}",
        f"  {BRITTLE}  positive  {GONE_SETTER}",
        f"      not collected: {GONE_SETTER}; did you mean {SETTER!r}?",
        "fix or remove these entries (the tests were renamed or deleted)",
    ]


def test_the_default_file_from_the_ini_and_a_clean_check(
    suite: pytest.Pytester, cli: CliRunner
) -> None:
    suite.path.joinpath("orderdep-deps.json").write_text(deps_json(True), encoding="utf-8")
    suite.makeini("[pytest]\norderdep_deps = orderdep-deps.json\n")
    result = suite.runpytest(*QUIET, "-q")
    result.assert_outcomes(passed=3)
    (warning,) = warnings_of(result)
    assert warning.endswith("; list them with `orderdep deps --check`")
    code, out, _ = cli(*printed_command(warning))
    assert code == 1 and out.startswith("orderdep-deps.json: 2 of 3 entries")

    suite.path.joinpath("orderdep-deps.json").write_text(deps_json(), encoding="utf-8")
    code, out, err = cli("deps", "--check", suite.path)
    assert (code, out) == (
        0,
        "orderdep-deps.json: all 1 entries name collected tests\n",
    ), err
    assert not warnings_of(suite.runpytest(*QUIET))


def test_deps_check_collects_with_the_pytest_arguments_given(
    suite: pytest.Pytester, cli: CliRunner
) -> None:
    suite.path.joinpath("deps.json").write_text(deps_json(), encoding="utf-8")
    code, _, err = cli("deps", "--check", suite.path, "--deps", suite.path / "deps.json")
    assert code == 0, err
    # Deselecting the state-setter makes its entry stale: the argument reached pytest.
    argv = ["deps", "--check", suite.path, "--deps", suite.path / "deps.json"]
    code, out, _ = cli(*argv, f"--pytest-arg=--deselect={SETTER}")
    assert code == 1 and f"not collected: {SETTER}" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--deps", "x.json"], "--deps only apply with --check"),
        (["--pytest-arg=-x"], "--pytest-arg only apply with --check"),
        (["--check", "--output", "o.json"], "--output cannot be used with --check"),
        (["--check", "--deps", "missing.json"], "no dependencies file at"),
    ],
)
def test_deps_check_usage_errors(
    tmp_path: Path, cli: CliRunner, argv: list[str], expected: str
) -> None:
    code, _, err = cli("deps", tmp_path, *argv)
    assert code == 2 and expected in one_line(err)


@pytest.mark.parametrize("how", ["ini", "flag"])
def test_strict_keeps_unknown_ids_a_usage_error(suite: pytest.Pytester, how: str) -> None:
    args = [*QUIET, "--orderdep-deps", "deps.json"]
    if how == "ini":
        suite.makeini("[pytest]\norderdep_deps_strict = true\n")
    else:
        args.append("--orderdep-deps-strict")
    result = suite.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: orderdep: dependencies file * names tests this suite does not have:"]
    )
    assert not warnings_of(result)


BAD = {
    "binary": (b"\x00\x01\x02\xff\xfe binary", "is not UTF-8 text (byte 0xff at offset 3)"),
    "latin-1": ('{"schema": "d\xe9ps"}'.encode("latin-1"), "is not UTF-8 text (byte 0xe9"),
    "not json": (b"schema = deps\n", "is not valid JSON (line 1, column 1"),
    "malformed": (
        json.dumps(
            {
                "schema": "orderdep.deps/1",
                "dependencies": [{"test": "a", "kind": "x", "dependee": "b"}],
            }
        ).encode(),
        "kind must be 'positive'",
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_an_unreadable_deps_file_is_a_usage_error(suite: pytest.Pytester, kind: str) -> None:
    data, expected = BAD[kind]
    suite.path.joinpath("deps.json").write_bytes(data)
    result = suite.runpytest(*QUIET, "--orderdep-deps", "deps.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    (line,) = [x for x in result.errlines if x.startswith("ERROR: orderdep:")]
    assert "dependencies file" in line and expected in line


def test_an_unreadable_durations_file_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.path.joinpath("d.json").write_bytes(b"\xff\xfe\x00")
    args = ["--orderdep-shards", "2", "--orderdep-shard", "1", "--orderdep-durations", "d.json"]
    result = suite.runpytest(*QUIET, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: orderdep: durations file * is not UTF-8 text*"])


def test_shard_counts_are_bounded(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*QUIET, "--orderdep-shards", str(2**70), "--orderdep-shard", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*expected a whole number from 1 to 10000, got '1180591620717411303424'*"]
    )
