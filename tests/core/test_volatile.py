"""Test ids that change between processes (:mod:`orderdep.core.volatile`), on id strings."""

from __future__ import annotations

from orderdep.core.suite import Suite
from orderdep.core.volatile import (
    align,
    changed,
    looks_volatile,
    missing_notice,
    not_collected_message,
    param_base,
    same_test_set,
    same_tests,
    translate,
    volatile_cause,
    volatile_notice,
)
from orderdep.errors import UnknownTestsError

M = "tests/test_m.py"
FIRST = [
    f"{M}::test_a",
    f"{M}::test_stamp[2026-11-28 02:15:03.669876]",
    f"{M}::test_stamp[fixed]",
    f"{M}::TestC::test_r[17-x]",
    f"{M}::TestC::test_r[4-y]",
    f"{M}::test_z",
]
SECOND = [
    f"{M}::test_a",
    f"{M}::test_stamp[2026-11-28 02:15:04.012345]",
    f"{M}::test_stamp[fixed]",
    f"{M}::TestC::test_r[3-x]",
    f"{M}::TestC::test_r[9-y]",
    f"{M}::test_z",
]


def test_param_base_cuts_at_the_first_bracket() -> None:
    assert param_base(f"{M}::test_r[a[1]-b]") == f"{M}::test_r"
    assert param_base(f"{M}::test_a") == f"{M}::test_a"


def test_align_keeps_shared_ids_and_pairs_changed_ones_by_position_in_their_set() -> None:
    aligned = align(FIRST, SECOND)
    assert aligned == dict(zip(FIRST, SECOND))
    assert changed(FIRST, SECOND) == [FIRST[1], FIRST[3], FIRST[4]]


def test_align_prefers_a_shared_id_over_its_position() -> None:
    """Stable ids in another order (a set parametrized over a ``set()``) stay themselves;
    only ids found on one side are paired."""
    first = [f"{M}::t[b]", f"{M}::t[a]", f"{M}::t[7]"]
    second = [f"{M}::t[a]", f"{M}::t[9]", f"{M}::t[b]"]
    assert align(first, second) == {
        f"{M}::t[b]": f"{M}::t[b]",
        f"{M}::t[a]": f"{M}::t[a]",
        f"{M}::t[7]": f"{M}::t[9]",
    }


def test_a_set_of_another_size_is_not_paired() -> None:
    first = [f"{M}::t[1]", f"{M}::t[2]", f"{M}::t[fixed]"]
    second = [f"{M}::t[5]", f"{M}::t[fixed]"]
    assert align(first, second) == {f"{M}::t[fixed]": f"{M}::t[fixed]"}
    assert not same_tests(first, second)


def test_translate_renames_only_when_an_id_is_missing() -> None:
    assert translate([FIRST[0], FIRST[5]], SECOND, FIRST) == ({}, [])
    renamed, missing = translate([FIRST[1], FIRST[0], "gone.py::test_x"], SECOND, FIRST)
    assert renamed == {FIRST[1]: SECOND[1], FIRST[3]: SECOND[3], FIRST[4]: SECOND[4]}
    assert missing == ["gone.py::test_x"]
    # without the reference collection nothing can be paired
    assert translate([FIRST[1]], SECOND, []) == ({}, [FIRST[1]])


def test_same_tests_allows_renamed_ids_but_not_another_order() -> None:
    assert same_tests(FIRST, SECOND)
    assert not same_tests(FIRST, [SECOND[1], SECOND[0], *SECOND[2:]])


def test_same_test_set_allows_another_order_and_renamed_ids() -> None:
    assert same_test_set(FIRST, SECOND)
    assert same_test_set(FIRST, [SECOND[4], SECOND[0], SECOND[2], SECOND[1], SECOND[3], SECOND[5]])
    assert same_test_set(FIRST, list(reversed(FIRST)))


def test_same_test_set_wants_every_test_once() -> None:
    assert not same_test_set(FIRST, SECOND[:-1])
    assert not same_test_set(FIRST, [*SECOND[:-1], f"{M}::test_other"])
    assert not same_test_set(FIRST, [*SECOND[:-1], SECOND[0]])
    assert not same_test_set([*FIRST[:-1], FIRST[0]], SECOND)


def test_messages_name_the_cause_when_the_function_is_parametrized_here() -> None:
    assert looks_volatile(FIRST[1], SECOND)
    assert not looks_volatile(FIRST[0], SECOND[1:])
    assert "clock or `random`" in not_collected_message(FIRST[1], SECOND)
    assert "addopts" in not_collected_message("gone.py::test_x", SECOND)
    cause = volatile_cause([FIRST[1], "gone.py::test_x"], SECOND)
    assert cause.startswith(f"Likely cause: the parametrize ids of {M}::test_stamp change")
    assert "pytest.param(value, id=...)" in cause and "\n" not in cause
    assert volatile_cause(["gone.py::test_x"], SECOND) == ""


def test_unknown_tests_error_says_the_likely_cause() -> None:
    suite = Suite.from_ids(SECOND)
    try:
        suite.require([FIRST[1]])
    except UnknownTestsError as exc:
        assert exc.cause and exc.cause in str(exc)
    else:
        raise AssertionError("not raised")


def test_tests_that_cannot_be_matched_are_named_with_what_to_do() -> None:
    assert "pytest.param(value, id=...)" in missing_notice([f"{M}::t[1]"])
    assert "depends on the process" in missing_notice([f"{M}::t[1]", f"{M}::test_a"])


def test_the_notice_is_one_line_naming_the_tests() -> None:
    line = volatile_notice([f"{M}::t[{n}]" for n in range(5)])
    assert "\n" not in line and line.startswith("orderdep: 5 test id(s) change")
    assert f"{M}::t[0], {M}::t[1], {M}::t[2] and 2 more" in line
