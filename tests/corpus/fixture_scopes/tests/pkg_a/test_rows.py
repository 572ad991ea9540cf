from .conftest import PACKAGE_SETUPS


def test_insert(package_db):
    package_db["rows"].append("r1")
    assert package_db["rows"] == ["r1"]


def test_package_set_up_once(package_db):
    assert PACKAGE_SETUPS == ["up"]
