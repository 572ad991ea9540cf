import unittest

from units.quantity import Quantity


class TestConvert(unittest.TestCase):
    def test_km_to_m(self):
        from units.convert import convert  # a heavy module, imported where it is needed

        self.assertEqual(convert(Quantity(2, "km"), "m"), Quantity(2000, "m"))
