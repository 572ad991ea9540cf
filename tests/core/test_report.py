from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orderdep.core.odmodel import fails, group_key
from orderdep.core.report import (
    SCHEMA,
    ODFinding,
    Report,
    RunStats,
    load_report,
    save_report,
)
from orderdep.errors import ReportError

TESTS = [f"t.py::test_{c}" for c in "abcdefgh"]
A, B, C, D, E, F, G, H = TESTS


def sample_report() -> Report:
    victim = ODFinding(
        test=E,
        kind="victim",
        failing_order=[C, A, E],
        passing_order=[E, A],
        polluters=[C, A],  # deliberately out of suite order
        polluter_groups=[[G, B]],
        cleaners={C: [D, B], group_key([G, B]): [F]},
        flake_rate={"all": 0.25, "grouped": None, "reverse": 0.5},
        extras={"evidence": {"runs": [1, 2]}, "pradet": [A]},
    )
    brittle = ODFinding(
        test=B,
        kind="brittle",
        failing_order=[B],
        passing_order=[H, B],
        state_setters=[H, A],
        state_setter_groups=[[D, C]],
    )
    return Report(
        project="/proj",
        tests=list(TESTS),
        od_tests=[victim, brittle],
        nd_tests=[H, G],
        always_failing=[F],
        stats=RunStats(orders_run=3, test_executions=12, wall_seconds=1.5, seed=7),
        extras={"future": True},
    )


def test_round_trip_keeps_everything_including_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    save_report(path, sample_report())
    loaded = load_report(path)
    assert loaded.to_json() == sample_report().to_json()
    victim = loaded.finding(E)
    assert victim is not None
    assert victim.extras == {"evidence": {"runs": [1, 2]}, "pradet": [A]}
    assert loaded.extras == {"future": True}
    assert victim.flake_rate == {"all": 0.25, "grouped": None, "reverse": 0.5}
    # a second save is byte-identical (stable output)
    path2 = tmp_path / "again.json"
    save_report(path2, loaded)
    assert path.read_text() == path2.read_text()


def test_output_is_in_suite_order_and_schema_first() -> None:
    data = sample_report().to_json()
    assert next(iter(data)) == "schema"
    assert data["schema"] == SCHEMA
    assert [f["test"] for f in data["od_tests"]] == [B, E]
    victim = data["od_tests"][1]
    assert victim["polluters"] == [A, C]
    assert victim["cleaners"][C] == [B, D]
    assert list(victim["cleaners"]) == sorted(victim["cleaners"])
    # orders and group members keep their order: they are part of the finding
    assert victim["failing_order"] == [C, A, E]
    assert victim["polluter_groups"] == [[G, B]]
    assert data["nd_tests"] == [G, H]
    assert data["od_tests"][0]["state_setters"] == [A, H]


def test_spec_round_trip_and_semantics() -> None:
    finding = sample_report().finding(E)
    assert finding is not None
    spec = finding.to_spec()
    assert spec.cleaners[group_key([G, B])] == [F]
    assert fails(spec, [C, E]) and not fails(spec, [C, D, E])
    back = ODFinding.from_spec(spec, failing_order=[C, A, E])
    assert back.to_spec() == spec
    assert back.failing_order == [C, A, E]


def test_missing_file_names_the_creating_command(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"no report at .*orderdep detect"):
        load_report(tmp_path / "nope.json")


def test_invalid_json_shows_where(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": \n nope}')
    with pytest.raises(ReportError, match="line 2"):
        load_report(path)


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    return path


def test_other_schema_version_is_refused(tmp_path: Path) -> None:
    data = sample_report().to_json()
    data["schema"] = "orderdep.report/2"
    with pytest.raises(ReportError, match=r"'orderdep.report/2'.*reads 'orderdep.report/1'"):
        load_report(write(tmp_path, data))


def test_report_of_another_project_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, sample_report().to_json())
    assert load_report(path, project="/proj/").project == "/proj"
    with pytest.raises(ReportError, match=r"for project '/proj', not '/other'"):
        load_report(path, project="/other")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["od_tests"][0].update(kind="vic"), r"kind must be .*got 'vic'"),
        (lambda d: d["od_tests"][0].update(polluters="x"), r"polluters must be a list"),
        (lambda d: d["od_tests"][0]["flake_rate"].update(all="hi"), r"flake_rate.all"),
        (lambda d: d.pop("tests"), r"no 'tests' key"),
        (lambda d: d["stats"].update(orders_run=1.5), r"stats.orders_run must be an integer"),
        (lambda d: d["nd_tests"].append("t.py::nope"), r"nd_tests names 't.py::nope'"),
        (lambda d: d["od_tests"].append(dict(d["od_tests"][0])), r"listed twice"),
    ],
)
def test_malformed_reports_say_what_is_wrong(tmp_path: Path, mutate: Any, message: str) -> None:
    data = sample_report().to_json()
    mutate(data)
    with pytest.raises(ReportError, match=message):
        load_report(write(tmp_path, data))


def test_minimal_report_gets_defaults() -> None:
    report = Report.from_json({"schema": SCHEMA, "project": "p", "tests": [A], "od_tests": []})
    assert report.stats == RunStats()
    assert report.nd_tests == []


def test_report_in_the_projects_own_directory_travels_with_it(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    (copy / ".orderdep").mkdir(parents=True)
    path = write(copy / ".orderdep", sample_report().to_json())  # recorded for '/proj'
    assert load_report(path, project=str(copy)).project == "/proj"
    with pytest.raises(ReportError, match=r"for project '/proj', not '/other'"):
        load_report(path, project="/other")
