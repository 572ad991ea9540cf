"""The turns of ``orderdep fix``: an equal share of the budget each first, then a second
turn with what is left for the tests their share stopped."""

from __future__ import annotations

from orderdep.shells.commands.fix_turns import MIN_TURN, SUITE_RUNS, Turns, least_turn


def test_each_first_turn_gets_an_equal_share_of_what_is_left() -> None:
    turns = Turns(["a", "b", "c", "d"])
    first = next(iter(turns))
    assert turns.share(first, 120.0) == 30.0  # four first turns left, this one included
    assert turns.share(first, None) is None  # no budget, no share


def test_a_share_is_never_below_the_least_turn_unless_less_is_left() -> None:
    turns = Turns([str(i) for i in range(20)])
    first = next(iter(turns))
    assert turns.share(first, 100.0) == MIN_TURN
    assert turns.share(first, 5.0) == 5.0


def test_the_last_first_turn_and_second_turns_get_all_that_is_left() -> None:
    turns = Turns(["a", "b"])
    seen = []
    for turn in turns:
        seen.append((turn.item, turn.second, turns.share(turn, 90.0)))
        if turn.second:
            assert not turns.again(turn)  # a second turn is the last
        elif turn.item == "a":
            assert turns.again(turn)  # its share stopped it
    assert seen == [("a", False, 45.0), ("b", False, 90.0), ("a", True, 90.0)]
    assert [t.index for t in Turns(["x", "y"])] == [0, 1]


def test_a_first_turn_gets_at_least_a_few_runs_of_the_whole_suite() -> None:
    assert least_turn(None) == MIN_TURN
    assert least_turn(1.0) == MIN_TURN
    assert least_turn(20.0) == SUITE_RUNS * 20.0
    # a suite that runs only in the set check: one run of it, for the debug and patches
    assert least_turn(37.0, runs=1) == 37.0 and least_turn(5.0, runs=1) == MIN_TURN
    turns = Turns(["a", "b", "c"], least=least_turn(20.0))
    first = next(iter(turns))
    assert turns.share(first, 100.0) == 80.0  # not a third of it: one candidate's runs


def test_first_turns_alternate_between_the_two_kinds_in_their_order() -> None:
    turns = Turns(["b1", "v1", "b2", "v2"], first=lambda t: t.startswith("v"))
    assert [(t.index, t.item) for t in turns] == [(1, "v1"), (0, "b1"), (3, "v2"), (2, "b2")]


def test_the_rest_of_the_longer_kind_takes_its_turns_last() -> None:
    items = ["v1", "v2", "v3", "b1"]
    assert [t.item for t in Turns(items, first=lambda t: t.startswith("v"))] == [
        "v1", "b1", "v2", "v3"
    ]  # fmt: skip
    items = ["b1", "b2", "v1"]
    assert [t.item for t in Turns(items, first=lambda t: t.startswith("v"))] == [
        "v1", "b1", "b2"
    ]  # fmt: skip


def test_the_items_of_one_group_count_as_one_share() -> None:
    # three victims of one polluter function, one of another: two shares, not four
    items = ["v1", "v2", "v3", "w1"]
    turns = Turns(items, first=bool, group=lambda t: "p" if t.startswith("v") else "q")
    first = next(iter(turns))
    assert turns.share(first, 120.0) == 60.0
    ungrouped = Turns(items)
    assert ungrouped.share(next(iter(ungrouped)), 120.0) == 30.0
