import os

import pytest

from tickets import TicketBook


@pytest.fixture(scope="module")
def book():
    book = TicketBook("tests/book.json", first=100)
    yield book
    os.remove("tests/book.json")


def test_first_ticket(book):
    assert book.draw() == 100


def test_third_ticket(book):
    book.draw()
    assert book.draw() == 102
