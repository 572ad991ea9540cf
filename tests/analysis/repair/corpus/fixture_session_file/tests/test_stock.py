import inventory


def test_sell_apple(stock_file):
    data = inventory.load(stock_file)
    data["apples"] -= 1
    inventory.save(stock_file, data)
    assert inventory.load(stock_file)["apples"] == 2


def test_initial_stock(stock_file):
    assert inventory.load(stock_file) == {"apples": 3, "pears": 5}
