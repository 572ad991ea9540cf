"""Code a test replaces for good: a library function (``pacer.time.sleep = MagicMock()``)
or a property of a project class (``type(obj).empty = PropertyMock()``). The debugger
names it, and the polluter is made to put it back."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import repaired_victim

PACER = """
    import time


    def paced(items, gap):
        out = []
        for item in items:
            time.sleep(gap)
            out.append(item)
        return out
"""
TESTS = """
    import time
    from unittest.mock import MagicMock

    import pacer


    def test_fast_without_waiting():
        pacer.time.sleep = MagicMock()
        assert pacer.paced([1, 2], 5) == [1, 2]


    def test_waits_between_items():
        start = time.monotonic()
        assert pacer.paced([1, 2], 0.05) == [1, 2]
        assert time.monotonic() - start >= 0.1
"""
M = "tests/test_pacer.py::"
VICTIM, POLLUTER = M + "test_waits_between_items", M + "test_fast_without_waiting"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def _repaired(root: Path, files: dict[str, str], victim: str, polluter: str, work: Path) -> str:
    """Write ``files``, repair ``victim`` at its polluter and check it (see
    :func:`repaired_victim`); the new text of the one file it changed."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    ((_, new),) = repaired_victim(
        root, victim, polluter, work
    ).items()  # the polluter's patch ranks first
    return new


def test_a_library_function_replaced_for_good_is_put_back_by_its_polluter(
    tmp_path: Path,
) -> None:
    files = {"pacer.py": PACER, "tests/test_pacer.py": TESTS}
    new = _repaired(tmp_path / "p", files, VICTIM, POLLUTER, tmp_path / "w")
    assert "monkeypatch.setattr(time, 'sleep', time.sleep)" in new, new


SHOP = """
    class Basket:
        def __init__(self):
            self.items = []

        @property
        def empty(self):
            return not self.items
"""
BASKET_TESTS = """
    from unittest.mock import PropertyMock

    import shop


    def test_checkout_refuses_an_empty_basket():
        basket = shop.Basket()
        type(basket).empty = PropertyMock(return_value=False)
        assert not basket.empty


    def test_new_basket_is_empty():
        assert shop.Basket().empty
"""


def test_a_property_replaced_by_a_mock_is_put_back_by_its_polluter(tmp_path: Path) -> None:
    b = "tests/test_basket.py::"
    files = {"shop.py": SHOP, "tests/test_basket.py": BASKET_TESTS}
    new = _repaired(
        tmp_path / "p", files, b + "test_new_basket_is_empty",
        b + "test_checkout_refuses_an_empty_basket", tmp_path / "w",
    )  # fmt: skip
    assert "monkeypatch.setattr(shop.Basket, 'empty', shop.Basket.empty)" in new, new
