from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orderdep.core.depsfile import Dependency
from orderdep.core.enhance import (
    DependencyConflictError,
    enhance_order,
    enhance_parallel,
    enhance_selection,
    plan,
)
from orderdep.core.order_check import EnhanceStats, Violation, check_order, enhance_stats
from orderdep.errors import UsageError


def pos(test: str, dependee: str) -> Dependency:
    """<dependee -> test>: test runs only after dependee."""
    return Dependency(test, "positive", dependee)


def neg(test: str, dependee: str) -> Dependency:
    """<dependee -/-> test>: test must not run after dependee."""
    return Dependency(test, "negative", dependee)


def group(test: str, kind: str, *members: str) -> list[Dependency]:
    return [Dependency(test, kind, m, tuple(members)) for m in members]  # type: ignore[arg-type]


# --- Figure 1 and Figure 2 on hand-made cases ---------------------------------------------

ORIG = ["t1", "t2", "t3", "t4"]
FIG1 = [pos("t2", "t1")]  # <t1 -> t2>


@pytest.mark.parametrize("unenhanced", [["t3", "t2", "t1", "t4"], ["t3", "t2", "t4", "t1"]])
def test_figure_1(unenhanced: list[str]) -> None:
    # The extracted text lost Figure 1's unenhanced column; any order with t3 first and t2
    # before t1 gives the figure's enhanced order t3, t1, t2, t4.
    enhanced = enhance_order(unenhanced, FIG1, all_tests=ORIG)
    assert enhanced == ["t3", "t1", "t2", "t4"]
    assert check_order(unenhanced, FIG1) == [Violation("t2", "positive", (("t1",),))]
    assert check_order(enhanced, FIG1) == []
    assert enhance_stats(unenhanced, enhanced, FIG1).summary() == (
        "added 0 tests, moved 1 to satisfy 1 dependency"
    )


def test_satisfied_order_comes_back_unchanged() -> None:
    assert enhance_order(ORIG, FIG1) == ORIG
    assert enhance_order(["t1", "t3", "t2"], FIG1, all_tests=ORIG) == ["t1", "t3", "t2"]


def test_transitive_positive_dependees_are_added_to_a_subset() -> None:
    orig = ["a", "b", "c", "d", "e"]
    deps = [pos("c", "b"), pos("b", "a")]
    selected = ["d", "c"]
    enhanced = enhance_selection(selected, deps, orig)
    assert enhanced == ["d", "a", "b", "c"]
    stats = enhance_stats(selected, enhanced, deps)
    assert stats.added == ("a", "b")
    assert stats.moved == ()
    assert (stats.fixed, stats.satisfied) == (1, 2)
    assert stats.summary() == "added 2 tests, moved 0 to satisfy 1 dependency"


def test_without_all_tests_nothing_is_added() -> None:
    deps = [pos("c", "b")]
    enhanced = enhance_order(["c", "d"], deps)
    assert enhanced == ["c", "d"]
    stats = enhance_stats(["c", "d"], enhanced, deps)
    assert stats.unsatisfied == (Violation("c", "positive", (("b",),)),)
    assert "1 cannot be satisfied: 'c' runs without 'b' before it" in stats.summary()


def test_added_dependees_follow_the_original_order() -> None:
    orig = ["s2", "x", "s1", "b"]
    deps = [*group("b", "positive", "s2", "s1")]
    assert enhance_selection(["b"], deps, orig) == ["s2", "s1", "b"]


def test_victim_moves_before_its_polluter() -> None:
    deps = [neg("v", "p")]
    enhanced = enhance_order(["p", "x", "v"], deps)
    assert enhanced == ["v", "p", "x"]
    assert enhance_stats(["p", "x", "v"], enhanced, deps).moved == ("v",)
    assert check_order(["p", "x", "v"], deps) == [Violation("v", "negative", (("p",),))]


def test_victim_outside_the_subset_is_not_pulled_in() -> None:
    assert enhance_selection(["p", "x"], [neg("v", "p")], ["v", "p", "x"]) == ["p", "x"]


def test_victim_added_as_a_dependee_still_precedes_its_polluter() -> None:
    orig = ["v", "p", "b"]
    deps = [pos("b", "v"), neg("v", "p")]
    assert enhance_selection(["p", "b"], deps, orig) == ["v", "p", "b"]


def test_positive_alternatives_prefer_what_the_order_already_has() -> None:
    orig = ["s1", "s2", "b"]
    deps = [pos("b", "s1"), pos("b", "s2")]  # any one state-setter suffices
    assert enhance_order(["s2", "b", "s1"], deps, all_tests=orig) == ["s2", "b", "s1"]
    assert enhance_order(["b", "s1", "s2"], deps, all_tests=orig) == ["s1", "b", "s2"]
    assert enhance_selection(["b"], deps, orig) == ["s1", "b"]
    assert enhance_selection(["b", "s2"], deps, orig) == ["s2", "b"]
    # s1 was deleted from the suite: the other alternative is used
    assert enhance_selection(["b"], deps, ["s2", "b"]) == ["s2", "b"]


def test_unavailable_state_setter_is_reported_not_invented() -> None:
    deps = [pos("b", "gone")]
    enhanced = enhance_selection(["b", "x"], deps, ["b", "x"])
    assert enhanced == ["b", "x"]
    assert plan(["b", "x"], deps, ["b", "x"]).unavailable == {"b": [("gone",)]}
    assert enhance_stats(["b", "x"], enhanced, deps).fixed == 0


def test_positive_group_members_run_in_group_order() -> None:
    deps = group("b", "positive", "g1", "g2")
    assert enhance_order(["b", "g2", "g1"], deps) == ["g1", "g2", "b"]
    assert enhance_selection(["b"], deps, ["g2", "g1", "b"]) == ["g1", "g2", "b"]


def test_negative_group_needs_every_member() -> None:
    deps = group("v", "negative", "p1", "p2")
    # the victim only has to precede the member that completes the group
    assert enhance_order(["p1", "p2", "v"], deps) == ["p1", "v", "p2"]
    assert enhance_order(["p1", "v"], deps) == ["p1", "v"]
    assert check_order(["p1", "p2", "v"], deps) == [Violation("v", "negative", (("p1", "p2"),))]


def test_group_completed_while_placing_dependees_is_rechecked() -> None:
    # p2 needs p1; placing p1 for p2 completes v's polluter group, so v must then go
    # before p2 even though it did not have to when p2's placement started.
    deps = [pos("p2", "p1"), *group("v", "negative", "p1", "p2")]
    enhanced = enhance_selection(["p2", "v"], deps, ["v", "p1", "p2"])
    assert enhanced == ["p1", "v", "p2"]
    assert check_order(enhanced, deps) == []


def test_machines_each_get_what_their_tests_need() -> None:
    machines = [["t3", "t2"], ["t1", "t4"]]
    assert enhance_parallel(machines, FIG1, ORIG) == [["t3", "t1", "t2"], ["t1", "t4"]]


def test_stats_add_up_over_machines() -> None:
    a = EnhanceStats(added=("x",), moved=("y",), fixed=1, satisfied=2)
    b = EnhanceStats(added=("z",), fixed=2, satisfied=2)
    assert (a + b).summary() == "added 2 tests, moved 1 to satisfy 3 dependencies"


# --- conflicts and bad input ----------------------------------------------------------------


def test_positive_cycle_is_a_clear_error() -> None:
    deps = [pos("b", "a"), pos("c", "b"), pos("a", "c")]
    with pytest.raises(DependencyConflictError) as info:
        enhance_order(["a", "b", "c"], deps)
    message = str(info.value)
    assert "'a' needs 'c' to run before it" in message
    assert "'b' needs 'a' to run before it" in message
    assert "Remove or correct one" in message


def test_brittle_whose_dependee_needs_its_polluter_is_a_conflict() -> None:
    deps = [pos("b", "a"), pos("a", "c"), neg("b", "c")]
    with pytest.raises(DependencyConflictError, match="victim 'b' must run before polluter 'c'"):
        enhance_order(["c", "a", "b"], deps)


def test_opposite_group_orders_conflict() -> None:
    deps = [*group("x", "positive", "m1", "m2"), *group("y", "positive", "m2", "m1")]
    with pytest.raises(DependencyConflictError):
        enhance_order(["x", "y", "m1", "m2"], deps)


def test_bad_orders_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="duplicate test ids \\['a'\\]"):
        enhance_order(["a", "b", "a"], [])
    with pytest.raises(UsageError, match="not in all_tests: \\['z'\\]"):
        enhance_order(["a", "z"], [], all_tests=["a", "b"])


def test_long_chains_do_not_recurse() -> None:
    n = 3000
    tests = [f"t{i}" for i in range(n)]
    deps = [pos(tests[i], tests[i - 1]) for i in range(1, n)]
    assert enhance_selection([tests[-1]], deps, tests) == tests
    assert enhance_order(tests[::-1], deps) == tests


# --- Figure 2 transcribed literally, as a reference for single dependencies -----------------


def figure_2(tu: list[str], deps: Sequence[Dependency], torig: list[str]) -> list[str]:
    p = {(d.dependee, d.test) for d in deps if d.kind == "positive"}
    n = {(d.dependee, d.test) for d in deps if d.kind == "negative"}
    ta: set[str] = set()
    frontier = set(tu)
    while frontier:
        frontier = {a for (a, b) in p if b in frontier} - ta - set(tu)
        ta |= frontier
    te: list[str] = []

    def add_test(t: str) -> None:
        b = {x for x in set(tu) | ta if (x, t) in p or (t, x) in n}
        ell = sorted(b & set(tu), key=tu.index) + sorted(b - set(tu), key=torig.index)
        for x in ell:
            if x in te:
                continue
            add_test(x)
        te.append(t)

    for t in tu:
        if t in te:
            continue
        add_test(t)
    return te


@st.composite
def single_deps(draw: st.DrawFn) -> tuple[list[str], list[Dependency], list[str]]:
    """Linearisable single dependencies (the original order satisfies them), at most one
    positive dependee per test, and an unenhanced order that is a shuffled subset."""
    size = draw(st.integers(1, 10))
    tests = [f"t{i}" for i in range(size)]
    deps: list[Dependency] = []
    for j in range(1, size):
        if draw(st.booleans()):
            deps.append(pos(tests[j], tests[draw(st.integers(0, j - 1))]))
        for i in draw(st.sets(st.integers(0, j - 1), max_size=2)):
            if pos(tests[j], tests[i]) not in deps:
                deps.append(neg(tests[i], tests[j]))  # earlier victim, later polluter
    shuffled = draw(st.permutations(tests))
    keep = draw(st.integers(1, size))
    return tests, deps, list(shuffled[:keep])


@settings(max_examples=300, deadline=None, database=None)
@given(single_deps())
def test_matches_a_literal_transcription_of_figure_2(
    case: tuple[list[str], list[Dependency], list[str]],
) -> None:
    tests, deps, unenhanced = case
    assert enhance_order(unenhanced, deps, all_tests=tests) == figure_2(unenhanced, deps, tests)


@st.composite
def general_deps(draw: st.DrawFn) -> tuple[list[str], list[Dependency], list[str]]:
    """Linearisable dependencies with alternatives and groups of both kinds."""
    size = draw(st.integers(1, 12))
    tests = [f"t{i}" for i in range(size)]
    deps: list[Dependency] = []
    for j in range(1, size):
        for _ in range(draw(st.integers(0, 2))):  # alternatives
            if j >= 2 and draw(st.booleans()):
                members = sorted(draw(st.sets(st.integers(0, j - 1), min_size=2, max_size=3)))
                deps += group(tests[j], "positive", *(tests[m] for m in members))
            else:
                deps.append(pos(tests[j], tests[draw(st.integers(0, j - 1))]))
    for i in range(size - 1):
        later = st.integers(i + 1, size - 1)
        if draw(st.booleans()):
            deps.append(neg(tests[i], tests[draw(later)]))
        if i + 2 < size and draw(st.booleans()):
            members = sorted(draw(st.sets(later, min_size=2, max_size=2)))
            deps += group(tests[i], "negative", *(tests[m] for m in members))
    positive_pairs = {(d.test, d.dependee) for d in deps if d.kind == "positive"}
    deps = [d for d in deps if d.kind == "positive" or (d.test, d.dependee) not in positive_pairs]
    shuffled = draw(st.permutations(tests))
    keep = draw(st.integers(1, size))
    return tests, deps, list(shuffled[:keep])


def involved(deps: Sequence[Dependency]) -> set[str]:
    out: set[str] = set()
    for d in deps:
        out |= {d.test, d.dependee, *(d.group or ())}
    return out


@settings(max_examples=400, deadline=None, database=None)
@given(general_deps())
def test_enhanced_orders_satisfy_everything_and_keep_the_rest(
    case: tuple[list[str], list[Dependency], list[str]],
) -> None:
    tests, deps, unenhanced = case
    enhanced = enhance_order(unenhanced, deps, all_tests=tests)
    # every dependency holds
    assert check_order(enhanced, deps) == []
    # every unenhanced test runs exactly once, plus only positive dependees
    assert len(enhanced) == len(set(enhanced))
    assert set(unenhanced) <= set(enhanced)
    positive_dependees = {d.dependee for d in deps if d.kind == "positive"}
    assert set(enhanced) - set(unenhanced) <= positive_dependees
    # tests no dependency involves keep their unenhanced relative order
    free = [t for t in unenhanced if t not in involved(deps)]
    assert [t for t in enhanced if t in free] == free
    # enhancing again changes nothing
    assert enhance_order(enhanced, deps, all_tests=tests) == enhanced
    stats = enhance_stats(unenhanced, enhanced, deps)
    assert stats.unsatisfied == ()
    assert stats.fixed == len(check_order(unenhanced, deps))


@settings(max_examples=200, deadline=None, database=None)
@given(general_deps())
def test_orders_that_already_satisfy_are_untouched(
    case: tuple[list[str], list[Dependency], list[str]],
) -> None:
    tests, deps, _ = case
    # The original order satisfies the dependencies by construction.
    assert enhance_order(tests, deps) == tests
    assert enhance_stats(tests, tests, deps) == EnhanceStats(
        satisfied=enhance_stats(tests, tests, deps).satisfied
    )
