import pytest

import inventory


@pytest.fixture(scope="session")
def stock_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "stock.json"
    inventory.save(path, {"apples": 3, "pears": 5})
    return path
