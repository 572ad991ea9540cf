import unittest

from apidoc import recorder


class TestRecorder(unittest.TestCase):
    def setUp(self):
        self.status = 200

    def test_record_one(self):
        recorder.record("GET /", self.status)
        self.assertEqual(
            recorder.entries, [{"title": "GET /", "underline": "=====", "status": 200}]
        )
        recorder.clear()

    def test_clear(self):
        recorder.record("GET /", self.status)
        recorder.clear()
        self.assertEqual(recorder.entries, [])

    def test_custom_separator(self):
        recorder.separator = "-"
        recorder.record("GET /", self.status)
        self.assertEqual(recorder.entries[-1]["underline"], "-----")
        recorder.clear()
