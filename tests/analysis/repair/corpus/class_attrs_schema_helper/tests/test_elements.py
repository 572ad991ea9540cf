import unittest

from sexp import Marker, Pad


class PadTests(unittest.TestCase):
    def test_pad(self):
        self.assertEqual(Pad.parse("(pad 1 rect)"), {"number": "1", "shape": "rect"})


class MarkerTests(unittest.TestCase):
    def test_marker(self):
        self.assertEqual(Marker.parse("(marker)"), {})
