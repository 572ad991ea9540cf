import pytest

from bookshop import catalog
from bookshop.cart import Cart

HOBBIT = "9780261102217"
MARTIAN = "9780553418026"


class TestCartContents:
    def test_new_cart_is_empty(self):
        assert Cart().count() == 0

    def test_adding_a_book_twice_increases_quantity(self):
        cart = Cart()
        cart.add(HOBBIT)
        cart.add(HOBBIT)
        assert cart.count() == 2

    def test_cannot_add_unknown_book(self):
        with pytest.raises(catalog.UnknownBook):
            Cart().add("0000000000000")

    def test_remove_book(self):
        cart = Cart()
        cart.add(HOBBIT)
        cart.add(MARTIAN)
        cart.remove(HOBBIT)
        assert cart.count() == 1


def test_total_of_two_books():
    cart = Cart()
    cart.add(HOBBIT)
    cart.add(MARTIAN)
    assert cart.subtotal() == 2398
    assert cart.total() == 2398
