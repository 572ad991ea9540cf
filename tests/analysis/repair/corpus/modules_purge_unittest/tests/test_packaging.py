import importlib
import sys
import unittest


class TestModulesImportAlone(unittest.TestCase):
    def tearDown(self):
        # forget the package, so the next test imports it from scratch
        for name in sorted(sys.modules):
            if name == "units" or name.startswith("units."):
                del sys.modules[name]

    def test_convert_imports_alone(self):
        self.assertTrue(hasattr(importlib.import_module("units.convert"), "convert"))
