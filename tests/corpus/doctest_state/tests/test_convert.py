import pytest

from units.convert import FACTORS, fmt, register_unit, to_cm


def test_fmt_default_precision():
    assert fmt(0.5) == "0.50"


def test_to_cm():
    assert to_cm(3, "in") == 7.62


@pytest.mark.parametrize("name, factor, known", [("yd", 91.44, 2), ("mi", 160934.4, 3)])
def test_register_more_units(name, factor, known):
    register_unit(name, factor)
    assert len(FACTORS) == known
