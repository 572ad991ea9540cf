"""Reading the Debugger's descriptions of objects changed in place."""

from __future__ import annotations

from orderdep.analysis.repair.locate.root_info import object_attributes

CART = "app.Cart"


def test_attributes_of_one_object_in_each_description() -> None:
    before = ["obj", CART, [["items", ["list", []]], ["sep", "','"]]]
    after = ["obj", CART, [["items", ["list", ["'a'"]]]]]
    assert object_attributes(before, after) == [
        {"items": ["list", []], "sep": "','"},
        {"items": ["list", ["'a'"]]},
    ]


def test_anything_but_one_object_of_one_type_is_none() -> None:
    one = ["obj", CART, []]
    assert object_attributes(one, ["obj", "app.Order", []]) is None  # another type
    assert object_attributes(one, ["list", []]) is None  # not an object
    assert object_attributes(one, None) is None  # absent in one order
    assert object_attributes() is None
