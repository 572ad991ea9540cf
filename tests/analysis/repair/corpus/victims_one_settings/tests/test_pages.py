import pytest

import shop


def test_first_page():
    assert shop.page(0) == ["item-0", "item-1", "item-2"]


def test_second_page():
    assert shop.page(1) == ["item-3", "item-4", "item-5"]


def test_page_count():
    assert shop.page_count() == 4


def test_last_page_is_short():
    assert shop.last_page() == ["item-9"]


@pytest.mark.parametrize("number", [0, 1, 2])
def test_full_pages(number):
    assert len(shop.page(number)) == 3
