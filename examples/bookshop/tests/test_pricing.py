import pytest

from bookshop import pricing


def test_percent_off_rounds_to_whole_cents():
    assert pricing.apply_percent(999, 15) == 849


def test_promotion_must_take_something_off():
    with pytest.raises(ValueError):
        pricing.start_promotion("FREE", 100)
    assert "FREE" not in pricing.active_promotions()


def test_summer_sale_applies_to_every_book():
    pricing.start_promotion("SUMMER", 10)
    assert pricing.discounted(2000) == 1800


def test_ending_all_promotions():
    pricing.start_promotion("FLASH", 50)
    pricing.end_all_promotions()
    assert pricing.active_promotions() == []
    assert pricing.discounted(2000) == 2000
