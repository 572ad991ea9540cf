"""Tests for specio.load."""

from specio.tests.settings import TEST_DATA_PATH

from specio.load import *


def test_load_group():
    group = load_group("test_group_all", TEST_DATA_PATH)
    assert group["results"]
    assert group["settings"]["peak_width"] == [0.5, 12]
