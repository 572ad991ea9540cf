"""JUnit XML and recorded runs as failing orders (pure: no pytest run here)."""

from __future__ import annotations

import pytest

from orderdep.core.failing_order import (
    JunitCase,
    RecordedProcess,
    junit_name,
    junit_order,
    last_run,
    parse_junit,
    recorded_order,
)
from orderdep.errors import UsageError

A, B = "tests/test_a.py::test_one", "tests/sub/test_b.py::TestK::test_two[x-1]"
C, D = "tests/test_a.py::test_three", "tests/sub/test_b.py::test_four"
IDS = [A, B, C, D]


def test_junit_names_follow_pytests_mangling() -> None:
    assert junit_name(A) == ("tests.test_a", "test_one")
    assert junit_name(B) == ("tests.sub.test_b.TestK", "test_two[x-1]")
    assert junit_name("tests/test_p.py::test_p[a/b.py]") == ("tests.test_p", "test_p[a/b.py]")


def xml(*cases: str) -> str:
    return f'<testsuites><testsuite name="pytest">{"".join(cases)}</testsuite></testsuites>'


def case(test: str, failed: bool = False, worker: str = "") -> str:
    classname, name = junit_name(test)
    props = (
        f'<properties><property name="xdist_worker" value="{worker}" /></properties>'
        if worker
        else ""
    )
    body = '<failure message="assert 1 == 0">x</failure>' if failed else ""
    return f'<testcase classname="{classname}" name="{name}" time="0.1">{props}{body}</testcase>'


def test_parse_junit_reads_cases_in_file_order_with_failures_and_workers() -> None:
    cases = parse_junit(xml(case(C), case(A, failed=True, worker="gw1")))
    assert cases == [
        JunitCase("tests.test_a", "test_three", False, None),
        JunitCase("tests.test_a", "test_one", True, "gw1"),
    ]


@pytest.mark.parametrize("text", ["<testsuites><oops", "<testsuites/>"])
def test_parse_junit_refuses_what_is_not_a_junit_report(text: str) -> None:
    with pytest.raises(UsageError, match=r"--junitxml=FILE") as info:
        parse_junit(text, "--junitxml 'r.xml'")
    assert "\n" not in str(info.value) and "'r.xml'" in str(info.value)


def test_junit_order_maps_cases_to_ids_up_to_the_test() -> None:
    cases = parse_junit(xml(case(D), case(B), case(A, failed=True), case(C)))
    assert junit_order(cases, IDS, A) == [D, B, A]
    # a junit_prefix before the class name, and a case the suite no longer has
    prefixed = xml(
        '<testcase classname="ci.tests.test_a" name="test_gone"/>',
        '<testcase classname="ci.tests.test_a" name="test_three"/>',
        '<testcase classname="ci.tests.test_a" name="test_one"/>',
    )
    assert junit_order(parse_junit(prefixed), IDS, A) == [C, A]


def test_junit_order_keeps_the_worker_that_ran_the_test() -> None:
    cases = parse_junit(
        xml(
            case(D, worker="gw0"),
            case(C, worker="gw1"),
            case(B, worker="gw0"),
            case(A, True, "gw0"),
        )
    )
    assert junit_order(cases, IDS, A) == [D, B, A]


def test_junit_order_without_the_test_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"is not a test case of the JUnit file \(1 cases\)"):
        junit_order(parse_junit(xml(case(C))), IDS, A)


def entry(
    process: str, run: str, ended: float, order: list[str], failed: list[str]
) -> RecordedProcess:
    return RecordedProcess(process, run, ended, order, failed)


def test_last_run_keeps_only_the_newest_runs_processes() -> None:
    old = entry("main", "r1", 10.0, [A, B], [B])
    gw0, gw1 = entry("gw0", "r2", 20.0, [C, A], [A]), entry("gw1", "r2", 21.0, [D, B], [])
    stale_worker = entry("gw2", "r0", 5.0, [A], [A])
    assert last_run([old, gw1, stale_worker, gw0]) == [gw0, gw1]
    assert recorded_order([gw0, gw1], A) == [C, A]
    assert recorded_order([gw0, gw1], B) == [D, B]
    with pytest.raises(UsageError, match="did not run in the last recorded pytest run"):
        recorded_order([old], C)


def test_recorded_process_json_round_trip_and_bad_entries() -> None:
    e = entry("gw0", "r", 1.5, [A], [A])
    assert RecordedProcess.from_json(e.to_json()) == e
    assert RecordedProcess.from_json({"process": "main"}) is None
    assert RecordedProcess.from_json(["not", "a", "dict"]) is None
