"""Admin scenarios: each TestCase switches the settings it needs (not all put them back)."""

import unittest

from inventory.settings import Settings
from inventory.store import Store

MODULE_EVENTS: list[str] = []


def setUpModule() -> None:
    MODULE_EVENTS.append("setup")


def tearDownModule() -> None:
    MODULE_EVENTS.append("teardown")


class ReadOnlyModeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.saved = Settings.read_only
        Settings.read_only = True

    @classmethod
    def tearDownClass(cls) -> None:
        Settings.read_only = cls.saved

    def test_add_is_refused(self) -> None:
        with self.assertRaises(PermissionError):
            Store().add("bolt", 1)

    def test_module_set_up_once(self) -> None:
        self.assertEqual(MODULE_EVENTS, ["setup"])


class DollarReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        Settings.currency = "USD"  # never put back

    def test_label_in_dollars(self) -> None:
        self.assertEqual(Store().price_label(3), "3.00 USD")


class SmallPagesTest(unittest.TestCase):
    def setUp(self) -> None:
        Settings.page_size = 2  # no tearDown puts it back

    def test_second_page(self) -> None:
        store = Store()
        for name in "abcde":
            store.add(name, 1)
        self.assertEqual(store.page(1), ["c", "d"])
