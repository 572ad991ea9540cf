import pytest

import portal


@pytest.fixture
def client():
    return portal.app


def test_index_title(client):
    assert client.render_index() == "<title>Portal</title>"


def test_custom_title(client):
    portal.app.config["PAGE_TITLE"] = "Dev - Portal"
    assert client.render_index() == "<title>Dev - Portal</title>"


def test_theme(client):
    assert client.config["THEME"] == "light"
