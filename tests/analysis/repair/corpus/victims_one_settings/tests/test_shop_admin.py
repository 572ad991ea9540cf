import shop


def test_admin_shows_more_per_page():
    shop.SETTINGS["page_size"] = 5
    assert shop.page(0) == [f"item-{n}" for n in range(5)]


def test_price_format():
    assert shop.price(250) == "2.50 EUR"
