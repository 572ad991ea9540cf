import unittest

from sexp import Element


class SchemaTests(unittest.TestCase):
    def test_two_fields(self):
        point = Element.from_schema("point", ("x", "y"))
        self.assertEqual(point.parse("(point 1 2)"), {"x": "1", "y": "2"})

    def test_one_field(self):
        net = Element.from_schema("net", ("name",))
        self.assertEqual(net.parse("(net GND)"), {"name": "GND"})
