"""The orders a fix repaired again must pass in: those of both relations, each once (the
end-to-end repair is in tests/shells/test_cli_fix_again.py)."""

from __future__ import annotations

from orderdep.analysis.repair.again import joined
from orderdep.analysis.repair.verify.verify import Target


def test_joined_keeps_every_order_of_both_once() -> None:
    set_up = Target("t", [["t"]], [["s", "t"]])
    reset = Target("t", [["s", "f", "t"]], [["s", "t"]])
    both = joined(set_up, reset)
    assert both.test == "t"
    assert both.failing_orders == [["t"], ["s", "f", "t"]]
    assert both.passing_orders == [["s", "t"]]
