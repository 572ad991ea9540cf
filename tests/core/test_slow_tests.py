"""Which slow tests the search leaves out of its orders while a budget is short
(:mod:`orderdep.core.slow_tests`)."""

from __future__ import annotations

from orderdep.core.slow_tests import split_slow

# 40 tests: three sleep (20, 10 and 5 s), the rest take 0.1 s each (3.7 s together).
DURATIONS = [(f"t.py::test_{i}", 0.1) for i in range(40)]
DURATIONS[5] = ("t.py::test_5", 20.0)
DURATIONS[17] = ("t.py::test_17", 10.0)
DURATIONS[30] = ("t.py::test_30", 5.0)


def test_the_slowest_tests_are_left_out_until_an_order_fits_its_share() -> None:
    # 38.7 s an order; a quarter of 60 s left is 15 s: the two slowest go
    split = split_slow(DURATIONS, 60.0)
    assert split is not None
    assert split.left_out == ["t.py::test_5", "t.py::test_17"]
    assert split.kept == [t for t, _ in DURATIONS if t not in split.left_out]  # order kept
    assert round(split.kept_seconds, 6) == 8.7
    assert round(split.left_out_seconds, 6) == 30.0
    assert "2 slow test(s) taking 30 s (slowest t.py::test_5)" in split.describe()
    # less time left: the third goes too
    again = split_slow(DURATIONS, 20.0)
    assert again is not None and again.left_out[-1] == "t.py::test_30"


def test_nothing_is_left_out_when_an_order_fits_or_there_is_no_limit() -> None:
    assert split_slow(DURATIONS, 1000.0) is None
    assert split_slow(DURATIONS, None) is None


def test_a_suite_of_even_tests_keeps_every_test() -> None:
    """Leaving out a tenth of tests that all take as long saves a tenth: not worth a
    search that misses them."""
    even = [(f"t.py::test_{i}", 1.0) for i in range(40)]
    assert split_slow(even, 20.0) is None


def test_at_most_a_tenth_of_the_tests_is_left_out() -> None:
    # five slow tests of ten: one may go, and that does not halve an order
    half = [(f"t.py::test_{i}", 10.0 if i % 2 else 0.1) for i in range(10)]
    assert split_slow(half, 20.0) is None
