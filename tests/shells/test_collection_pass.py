"""The collection check's shares come out of what is left of the budget."""

from __future__ import annotations

from orderdep.analysis.budget import Budget
from orderdep.shells.commands.collection_pass import CollectionPass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_checks_share_is_a_share_of_what_is_left() -> None:
    clock = Clock()
    budget = Budget(120.0, clock)
    files = CollectionPass({}, ["a.py::t", "b.py::t"], budget, lambda line: None)
    assert files._of_left(0.2) == 0.2  # nothing spent yet
    clock.now = 70.0  # the fork runner's check of a slow suite took 70 s
    assert abs(files._of_left(0.2) * 120.0 - 10.0) < 1e-9  # a fifth of the 50 s left
