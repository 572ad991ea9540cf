"""Store behaviour with the default settings."""

import unittest

from inventory.settings import Settings
from inventory.store import Store


class StoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.opened_before = len(Store.opened)

    def setUp(self) -> None:
        self.store = Store()
        self.currency = Settings.currency  # a class attribute another TestCase patches
        self.addCleanup(self.store.items.clear)

    def tearDown(self) -> None:
        del self.store

    def test_default_page_size(self) -> None:
        self.assertEqual(self.store.page_size, 20)

    def test_label_uses_euro(self) -> None:
        self.assertEqual(self.currency, "EUR")
        self.assertEqual(self.store.price_label(2.5), "2.50 EUR")

    def test_add(self) -> None:
        if Settings.read_only:
            self.skipTest("store is read-only")
        self.store.add("nut", 3)
        self.assertEqual(self.store.items, {"nut": 3})

    @unittest.expectedFailure
    def test_dollar_labels_not_supported(self) -> None:
        self.assertEqual(self.store.price_label(1), "1.00 USD")


class AuditTest(unittest.TestCase):
    def test_no_store_opened_yet(self) -> None:
        self.assertEqual(len(Store.opened), 0, "stores opened before the audit")

    @classmethod
    def tearDownClass(cls) -> None:
        if Settings.page_size != 20:
            raise RuntimeError(f"page size left at {Settings.page_size}")
