"""Word search over titles and authors."""

from __future__ import annotations

import re

from bookshop import catalog

_INDEX: dict[str, set[str]] = {}  # lower-case word -> ISBNs


def _words(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"\w+", text)}


def rebuild_index() -> int:
    """Index every book of the catalogue; return how many were indexed."""
    _INDEX.clear()
    books = catalog.all_books()
    for book in books:
        for word in _words(f"{book.title} {book.author}"):
            _INDEX.setdefault(word, set()).add(book.isbn)
    return len(books)


def find(word: str) -> list[catalog.Book]:
    isbns = _INDEX.get(word.lower(), set())
    return [book for book in catalog.all_books() if book.isbn in isbns]
