"""Shopping carts."""

from __future__ import annotations

from bookshop import catalog, pricing


class Cart:
    def __init__(self) -> None:
        self._quantities: dict[str, int] = {}

    def add(self, isbn: str, quantity: int = 1) -> None:
        catalog.get(isbn)  # refuse books we do not sell
        self._quantities[isbn] = self._quantities.get(isbn, 0) + quantity

    def remove(self, isbn: str) -> None:
        self._quantities.pop(isbn, None)

    def count(self) -> int:
        return sum(self._quantities.values())

    def subtotal(self) -> int:
        return sum(catalog.get(isbn).price_cents * n for isbn, n in self._quantities.items())

    def total(self) -> int:
        return pricing.discounted(self.subtotal())
