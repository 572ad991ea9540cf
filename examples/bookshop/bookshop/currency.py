"""Showing prices in the shop's currency (``BOOKSHOP_CURRENCY``, euro by default)."""

from __future__ import annotations

import os


def currency() -> str:
    return os.environ.get("BOOKSHOP_CURRENCY", "EUR")


def format_price(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d} {currency()}"
