"""Tests for specio.io."""

import os

from specio.tests.settings import TEST_DATA_PATH

from specio.io import *


def test_fname():
    assert fname("data", "json") == "data.json"
    assert fname("data.json", "json") == "data.json"


def test_save_group(tgroup):
    res_name = "test_group_res"
    save_group(tgroup, res_name, TEST_DATA_PATH, save_results=True)
    assert os.path.exists(os.path.join(TEST_DATA_PATH, res_name + ".json"))

    all_name = "test_group_all"
    save_group(tgroup, all_name, TEST_DATA_PATH, True, True)
    assert os.path.exists(os.path.join(TEST_DATA_PATH, all_name + ".json"))
