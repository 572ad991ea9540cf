import os

import pytest

from notebook import Shell, create


def setup_module():
    """Create the notebook the tests navigate."""
    create("dummy.nb", {"groceries": ["milk", "eggs"], "work": ["report"]})


def teardown_module():
    os.remove("dummy.nb")


@pytest.fixture
def shell():
    sh = Shell()
    sh.do_open("dummy.nb")
    return sh
