import unittest

from reportgen import Reporter, reporter


class TestReporter(unittest.TestCase):
    def test_default_header(self):
        self.assertEqual(reporter.header(), "== default ==")

    def test_flush_empties(self):
        fresh = Reporter()
        fresh.add("x")
        fresh.flush()
        self.assertEqual(fresh.lines, [])
