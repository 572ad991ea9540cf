"""Aligned plain-text tables: every cell whole, columns split on two spaces."""

from __future__ import annotations

import re

import pytest

from orderdep.shells.table import aligned


def test_columns_are_as_wide_as_their_widest_cell_and_cells_are_never_cut() -> None:
    long_id = "tests/test_" + "x" * 150 + ".py::TestA::test_b[param-1]"
    lines = aligned(("test", "kind"), [(long_id, "victim"), ("t.py::a", "brittle")], "  ")
    assert lines == [
        "  test" + " " * (len(long_id) - 4) + "  kind",
        f"  {long_id}  victim",
        "  t.py::a" + " " * (len(long_id) - 7) + "  brittle",
    ]
    assert [re.split(r"  +", line.strip()) for line in lines[1:]] == [
        [long_id, "victim"],
        ["t.py::a", "brittle"],
    ]


def test_a_row_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="a row of 1 cells under 2 headers"):
        aligned(("a", "b"), [("x",)])
