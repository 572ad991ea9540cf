import pytest

from app import config


@pytest.fixture
def client():
    return {"dsn": config.SETTINGS["dsn"]}


def test_client_dsn(client):
    assert client["dsn"].startswith("sqlite")


def test_plain():
    assert config.SETTINGS is not None
