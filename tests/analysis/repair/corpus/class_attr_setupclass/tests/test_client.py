import unittest

from httpc import Client


class TestFastClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        Client.timeout = 1

    def test_fast_timeout(self):
        self.assertEqual(Client("http://x").effective_timeout, 1)


class TestClientDefaults(unittest.TestCase):
    def setUp(self):
        self.client = Client("http://example.org")

    def test_default_timeout(self):
        self.assertEqual(self.client.effective_timeout, 30)
