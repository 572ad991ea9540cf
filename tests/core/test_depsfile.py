from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orderdep.core.depsfile import (
    SCHEMA,
    Dependency,
    deps_from_report,
    dump_deps,
    load_deps,
    negative_constraints,
    parse_deps,
    positive_alternatives,
    save_deps,
)
from orderdep.core.odmodel import group_key
from orderdep.core.report import ODFinding, Report
from orderdep.errors import ReportError

TESTS = [f"t.py::test_{c}" for c in "abcdefghij"]
A, B, C, D, E, F, G, H, I, J = TESTS  # noqa: E741


def classified_report() -> Report:
    victim = ODFinding(
        test=E,
        kind="victim",
        polluters=[C, A],
        polluter_groups=[[G, B]],
        cleaners={C: [D], group_key([G, B]): [F]},
    )
    brittle = ODFinding(
        test=D, kind="brittle", state_setters=[H, F], state_setter_groups=[[J, I, A]]
    )
    return Report(project="/p", tests=list(TESTS), od_tests=[victim, brittle])


def test_deps_from_report() -> None:
    deps = deps_from_report(classified_report())
    assert deps == [
        Dependency(D, "positive", F),
        Dependency(D, "positive", H),
        Dependency(D, "positive", J, (J, I, A)),
        Dependency(D, "positive", I, (J, I, A)),
        Dependency(D, "positive", A, (J, I, A)),
        Dependency(E, "negative", A),
        Dependency(E, "negative", C),
        Dependency(E, "negative", G, (G, B)),
        Dependency(E, "negative", B, (G, B)),
    ]
    assert positive_alternatives(deps) == {D: [(F,), (H,), (J, I, A)]}
    assert negative_constraints(deps) == {E: [(A,), (C,), (G, B)]}


def test_unclassified_report_is_refused_unless_skipped() -> None:
    report = classified_report()
    report.od_tests.append(ODFinding(test=J))
    with pytest.raises(
        ReportError, match=r"not classified yet \('t.py::test_j'\).*orderdep classify"
    ):
        deps_from_report(report)
    assert len(deps_from_report(report, skip_unclassified=True)) == 9


def test_round_trip_is_stable(tmp_path: Path) -> None:
    deps = deps_from_report(classified_report())
    path = tmp_path / "deps.json"
    save_deps(path, reversed(deps))
    text = path.read_text()
    assert text == dump_deps(deps)
    loaded = load_deps(path, known_ids=TESTS)
    assert set(loaded) == set(deps)
    # group entries stay together and in the group's (required) order
    data = json.loads(text)
    assert data["schema"] == SCHEMA
    grouped = [e["dependee"] for e in data["dependencies"] if e.get("group") == [J, I, A]]
    assert grouped == [J, I, A]
    assert "group" not in data["dependencies"][0]
    assert dump_deps(loaded) == text


def load(tmp_path: Path, entries: Any, known: Any = None, schema: str = SCHEMA) -> list[Dependency]:
    path = tmp_path / "deps.json"
    path.write_text(json.dumps({"schema": schema, "dependencies": entries}))
    return load_deps(path, known_ids=known)


def entry(test: str, kind: str, dependee: str, group: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"test": test, "kind": kind, "dependee": dependee}
    if group is not None:
        out["group"] = group
    return out


def test_missing_file_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"no dependencies file at .*orderdep deps"):
        load_deps(tmp_path / "deps.json")


def test_other_schema(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"schema 'orderdep.deps/9'"):
        load(tmp_path, [], schema="orderdep.deps/9")


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([entry(A, "before", B)], r"dependencies\[0\]: kind must be 'positive'.*got 'before'"),
        (
            [{"test": A, "kind": "positive", "dependee": B, "dependée": C}],
            r"unknown key\(s\) \['dependée'\]",
        ),
        ([entry(A, "positive", A)], r"'t.py::test_a' depends on itself"),
        ([{"test": A, "kind": "positive"}], r"'dependee' must be a non-empty string, got None"),
        (
            [entry(A, "negative", B, [B, C])],
            r"group \['t.py::test_b', 't.py::test_c'\] of 't.py::test_a' has no entry for member\(s\) \['t.py::test_c'\]",
        ),
        ([entry(A, "negative", B, [B])], r"'group' must list at least two"),
        ([entry(A, "negative", B, [C, D])], r"not a member of its group"),
        ([entry(A, "positive", B), entry(A, "negative", B)], r"must run after .* and must not"),
        ("x", r"'dependencies' must be a list"),
        ([3], r"dependencies\[0\] must be an object"),
    ],
)
def test_bad_entries_are_explained(tmp_path: Path, entries: Any, message: str) -> None:
    with pytest.raises(ReportError, match=message):
        load(tmp_path, entries)


def test_unknown_ids_get_suggestions(tmp_path: Path) -> None:
    with pytest.raises(ReportError) as info:
        load(
            tmp_path,
            [entry("t.py::test_aa", "positive", B), entry(A, "negative", "u.py::test_c")],
            known=TESTS,
        )
    msg = str(info.value)
    assert "2 test id(s) that are not in the suite" in msg
    assert "'t.py::test_aa' (did you mean 't.py::test_a'" in msg
    assert "'u.py::test_c' (did you mean 't.py::test_c'" in msg


def test_positive_cycle_is_shown(tmp_path: Path) -> None:
    entries = [
        entry(A, "positive", B),
        entry(B, "positive", C),
        entry(C, "positive", A),
        entry(D, "positive", A),
    ]
    with pytest.raises(ReportError) as info:
        load(tmp_path, entries)
    msg = str(info.value)
    assert "cycle" in msg
    assert "'t.py::test_a' needs 't.py::test_b' before it" in msg
    assert "'t.py::test_c' needs 't.py::test_a' before it" in msg
    assert "test_d" not in msg


def test_negative_cycles_are_fine_and_duplicates_merge() -> None:
    data = {
        "schema": SCHEMA,
        "dependencies": [entry(A, "negative", B), entry(B, "negative", A), entry(A, "negative", B)],
    }
    assert parse_deps(data) == [Dependency(A, "negative", B), Dependency(B, "negative", A)]
