"""The turns of ``orderdep fix``: an equal share of the budget each first, then a second
turn with what is left for the tests their share stopped."""

from __future__ import annotations

from orderdep.shells.commands.fix_turns import MIN_TURN, Turns


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
