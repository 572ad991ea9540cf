import unittest

from apidoc import recorder


class TestViews(unittest.TestCase):
    """Each view test documents the request it makes."""

    def test_index(self):
        recorder.record("GET /index", 200)
        self.assertEqual(recorder.entries[-1]["status"], 200)

    def test_missing(self):
        recorder.record("GET /missing", 404)
        self.assertEqual(recorder.entries[-1]["status"], 404)
