import unittest
from unittest import mock
from unittest.mock import PropertyMock

from httpkit.client import ApiError, BadRequest, Client, Denied, NotFound


class TestErrors(unittest.TestCase):
    def test_server_error(self):
        mock.MagicMock.ok = PropertyMock(return_value=False)
        mock.MagicMock.content = PropertyMock(return_value='{"message": "boom"}')
        mock.MagicMock.status_code = PropertyMock(return_value=500)
        with self.assertRaises(ApiError):
            Client(mock.MagicMock()).get("/")

    def test_bad_request(self):
        mock.MagicMock.ok = PropertyMock(return_value=False)
        mock.MagicMock.status_code = PropertyMock(return_value=400)
        with self.assertRaises(BadRequest):
            Client(mock.MagicMock()).get("/")

    def test_denied(self):
        mock.MagicMock.ok = PropertyMock(return_value=False)
        mock.MagicMock.status_code = PropertyMock(return_value=401)
        with self.assertRaises(Denied):
            Client(mock.MagicMock()).get("/")

    def test_not_found(self):
        mock.MagicMock.ok = PropertyMock(return_value=False)
        mock.MagicMock.status_code = PropertyMock(return_value=404)
        with self.assertRaises(NotFound):
            Client(mock.MagicMock()).get("/")

    def test_validation_list_body(self):
        mock.MagicMock.ok = PropertyMock(return_value=False)
        mock.MagicMock.content = PropertyMock(return_value="[]")
        mock.MagicMock.status_code = PropertyMock(return_value=422)
        with self.assertRaises(AttributeError):
            Client(mock.MagicMock()).get("/")
