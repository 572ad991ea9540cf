from unittest import mock
from unittest.mock import PropertyMock

import pytest

from httpkit.client import ApiError, BadRequest, Client, Denied


class Session(mock.MagicMock):
    """A session whose answers (its child mocks, of this class too) the tests configure."""


def test_server_error():
    Session.ok = PropertyMock(return_value=False)
    Session.content = PropertyMock(return_value='{"message": "boom"}')
    Session.status_code = PropertyMock(return_value=500)
    with pytest.raises(ApiError):
        Client(Session()).get("/")


def test_bad_request():
    Session.ok = PropertyMock(return_value=False)
    Session.status_code = PropertyMock(return_value=400)
    with pytest.raises(BadRequest):
        Client(Session()).get("/")


def test_denied():
    Session.ok = PropertyMock(return_value=False)
    Session.status_code = PropertyMock(return_value=401)
    with pytest.raises(Denied):
        Client(Session()).get("/")


def test_validation_list_body():
    Session.ok = PropertyMock(return_value=False)
    Session.content = PropertyMock(return_value="[]")
    Session.status_code = PropertyMock(return_value=422)
    with pytest.raises(AttributeError):
        Client(Session()).get("/")
