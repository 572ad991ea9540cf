"""Which parametrize arguments a polluter gets copies of."""

from __future__ import annotations

from orderdep.analysis.repair.candidates.param_copies import parametrize_names

SOURCE = """
import pytest

ARGS = [({"a": 1}, "x"), ({"a": 2}, "y")]


@pytest.mark.parametrize(("atts", "expected"), ARGS)
def test_list(atts, expected):
    pass


@pytest.mark.parametrize("data,n", [([], 1), ({}, 2)])
def test_inline(data, n):
    pass


@pytest.mark.parametrize("made", make_cases())
class TestCls:
    @pytest.mark.parametrize("flag", [True, False])
    def test_method(self, made, flag):
        pass
"""


def test_only_arguments_that_can_change_are_named() -> None:
    assert parametrize_names(SOURCE, "t.py::test_list[atts0-x]") == ["atts"]
    assert parametrize_names(SOURCE, "t.py::test_inline[data0-1]") == ["data"]
    # values that cannot be read are kept; immutable ones are not
    assert parametrize_names(SOURCE, "t.py::TestCls::test_method[True-m]") == ["made"]
    assert parametrize_names(SOURCE, "t.py::test_missing") == []
    assert parametrize_names("def broken(:", "t.py::test_list") == []
