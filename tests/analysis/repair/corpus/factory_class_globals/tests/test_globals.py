import unittest

import meter


class TestGlobals(unittest.TestCase):
    def test_debug_default_value(self):
        self.assertEqual(meter.g.debug, False)

    def test_debug_set_true(self):
        meter.debug(True)
        self.assertEqual(meter.g.debug, True)
