import os

from bookshop import currency


def test_prices_are_shown_in_euro():
    assert currency.format_price(1299) == "12.99 EUR"


def test_small_amounts_keep_two_decimals():
    assert currency.format_price(5).split()[0] == "0.05"


def test_prices_for_the_us_store():
    os.environ["BOOKSHOP_CURRENCY"] = "USD"
    assert currency.format_price(1099) == "10.99 USD"
