import os
import shutil

import pytest

from specio.tests.settings import BASE_TEST_FILE_PATH, TEST_DATA_PATH


@pytest.fixture(scope="session", autouse=True)
def check_dir():
    """Once per session: start from empty test file directories."""
    if os.path.exists(BASE_TEST_FILE_PATH):
        shutil.rmtree(BASE_TEST_FILE_PATH)
    os.mkdir(BASE_TEST_FILE_PATH)
    os.mkdir(TEST_DATA_PATH)


@pytest.fixture(scope="session")
def tgroup():
    return {"results": [[1.0, 2.5], [0.5, 3.0]], "settings": {"peak_width": [0.5, 12]}}
