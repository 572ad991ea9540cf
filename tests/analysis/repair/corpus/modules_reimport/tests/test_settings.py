import importlib
import os
import sys


def test_currency_from_env():
    os.environ["SHOP_CURRENCY"] = "EUR"
    try:
        sys.modules.pop("shop.settings", None)
        settings = importlib.import_module("shop.settings")
        assert settings.CURRENCY == "EUR"
    finally:
        del os.environ["SHOP_CURRENCY"]


def test_default_currency():
    from shop import settings

    assert settings.CURRENCY == "USD"
