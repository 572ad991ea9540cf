import unittest

import pytest


@pytest.mark.usefixtures("catalog_on_class")
class TestSale(unittest.TestCase):
    def test_half_price_tea(self):
        self.catalog.discount("tea", 0.5)
        self.assertEqual(self.catalog.price("tea"), 1.0)


@pytest.mark.usefixtures("catalog_on_class")
class TestPrices(unittest.TestCase):
    def test_tea_price(self):
        self.assertEqual(self.catalog.price("tea"), 2.0)

    def test_coffee_price(self):
        self.assertEqual(self.catalog.price("coffee"), 3.0)
