import inventory


def test_load():
    assert inventory.ITEMS == {}  # nothing loaded before
    inventory.load()


def test_apples():
    assert inventory.ITEMS["apples"] == 3


def test_count():
    assert len(inventory.ITEMS) == 1
