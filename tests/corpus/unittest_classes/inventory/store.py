from typing import ClassVar

from inventory.settings import Settings


class Store:
    opened: ClassVar[list["Store"]] = []  # every store ever opened (for the audit report)

    def __init__(self) -> None:
        self.items: dict[str, int] = {}
        self.page_size = Settings.page_size
        Store.opened.append(self)

    def add(self, name: str, quantity: int) -> None:
        if Settings.read_only:
            raise PermissionError("store is read-only")
        self.items[name] = self.items.get(name, 0) + quantity

    def page(self, number: int) -> list[str]:
        names = sorted(self.items)
        start = number * self.page_size
        return names[start : start + self.page_size]

    def price_label(self, amount: float) -> str:
        return f"{amount:.2f} {Settings.currency}"
