"""A shop's listing pages; how many items a page shows is a setting."""

SETTINGS = {"page_size": 3, "currency": "EUR"}

ITEMS = [f"item-{n}" for n in range(10)]


def page(number):
    size = SETTINGS["page_size"]
    return ITEMS[number * size : (number + 1) * size]


def page_count():
    size = SETTINGS["page_size"]
    return -(-len(ITEMS) // size)


def last_page():
    return page(page_count() - 1)


def price(cents):
    return f"{cents / 100:.2f} {SETTINGS['currency']}"
