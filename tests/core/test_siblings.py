"""The orders that try a victim's polluter right before the victim's siblings."""

from __future__ import annotations

from orderdep.core.siblings import nearest_siblings, sibling_orders

ORDER = [
    "tests/test_a.py::test_p",
    "tests/test_b.py::TestC::test_0",
    "tests/test_b.py::TestC::test_1",
    "tests/test_b.py::TestC::test_2",
    "tests/test_b.py::TestC::test_3",
    "tests/test_b.py::TestD::test_0",
    "tests/test_b.py::test_free",
]
C = "tests/test_b.py::TestC::"


def test_the_siblings_are_the_victims_class_nearest_first() -> None:
    assert nearest_siblings(C + "test_2", ORDER) == [C + "test_1", C + "test_3", C + "test_0"]
    assert nearest_siblings(C + "test_2", ORDER, limit=2) == [C + "test_1", C + "test_3"]


def test_a_test_outside_classes_has_its_modules_free_tests_as_siblings() -> None:
    order = ["tests/test_e.py::test_x", "tests/test_e.py::test_y", "tests/test_f.py::test_z"]
    assert nearest_siblings("tests/test_e.py::test_y", order) == ["tests/test_e.py::test_x"]
    assert nearest_siblings("tests/test_g.py::test_gone", order) == []


def test_each_polluter_and_class_is_swept_once_leaving_out_known_tests() -> None:
    p = "tests/test_a.py::test_p"
    swept: set[tuple[str, str]] = set()
    first = sibling_orders([(p, C + "test_0")], ORDER, {C + "test_2"}, swept)
    assert first == [[p, C + "test_1"], [p, C + "test_3"]]
    assert sibling_orders([(p, C + "test_3")], ORDER, set(), swept) == []
    other = "tests/test_b.py::TestD::test_0"
    assert sibling_orders([(other, C + "test_3")], ORDER, set(), swept) == [
        [other, C + "test_2"],
        [other, C + "test_1"],
        [other, C + "test_0"],
    ]
