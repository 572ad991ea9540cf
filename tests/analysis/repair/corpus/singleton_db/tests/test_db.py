import unittest

from store import Database


class TestFileDatabase(unittest.TestCase):
    def setUp(self):
        self.db = Database.get("sqlite:///app.db")

    def test_url(self):
        self.assertEqual(self.db.url, "sqlite:///app.db")


class TestDefaultDatabase(unittest.TestCase):
    def test_in_memory_by_default(self):
        self.assertEqual(Database.get().url, "sqlite:///:memory:")
