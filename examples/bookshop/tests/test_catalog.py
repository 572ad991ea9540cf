import pytest

from bookshop import catalog


def test_get_book_by_isbn():
    assert catalog.get("9780141439518").title == "Pride and Prejudice"


def test_unknown_isbn():
    with pytest.raises(catalog.UnknownBook):
        catalog.get("9999999999999")


def test_books_are_listed_by_title():
    titles = [book.title for book in catalog.all_books()]
    assert titles == sorted(titles)
