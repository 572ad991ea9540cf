import os

CURRENCY = os.environ.get("SHOP_CURRENCY", "USD")
