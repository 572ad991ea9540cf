"""Prices and store-wide promotions."""

from __future__ import annotations

_PROMOTIONS: dict[str, int] = {}  # promotion code -> percent off


def apply_percent(cents: int, percent: int) -> int:
    """``cents`` reduced by ``percent`` %, rounded half up to a whole cent."""
    return cents - (cents * percent + 50) // 100


def start_promotion(code: str, percent: int) -> None:
    if not 0 < percent < 100:
        raise ValueError(f"a promotion takes 1-99 % off, not {percent}")
    _PROMOTIONS[code] = percent


def end_promotion(code: str) -> None:
    _PROMOTIONS.pop(code, None)


def end_all_promotions() -> None:
    _PROMOTIONS.clear()


def active_promotions() -> list[str]:
    return sorted(_PROMOTIONS)


def discounted(cents: int) -> int:
    """The price after the best running promotion."""
    best = max(_PROMOTIONS.values(), default=0)
    return apply_percent(cents, best)
