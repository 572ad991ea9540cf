"""The books we sell."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Book:
    isbn: str
    title: str
    author: str
    price_cents: int


class UnknownBook(KeyError):
    pass


_BOOKS: dict[str, Book] = {
    book.isbn: book
    for book in (
        Book("9780261102217", "The Hobbit", "J. R. R. Tolkien", 1299),
        Book("9780141439518", "Pride and Prejudice", "Jane Austen", 799),
        Book("9780553418026", "The Martian", "Andy Weir", 1099),
        Book("9780062316097", "Sapiens", "Yuval Noah Harari", 1899),
    )
}


def get(isbn: str) -> Book:
    try:
        return _BOOKS[isbn]
    except KeyError:
        raise UnknownBook(isbn) from None


def all_books() -> list[Book]:
    return sorted(_BOOKS.values(), key=lambda book: book.title)
