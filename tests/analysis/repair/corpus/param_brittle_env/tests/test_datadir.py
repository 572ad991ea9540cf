import os

import pytest

import datadir


def test_home_configured():
    os.environ["DATADIR_HOME"] = "/var/lib/datadir"
    assert datadir.path_of("x") == "/var/lib/datadir/x"


@pytest.mark.parametrize("name", ["a.db", "b.db", "c.db"])
def test_path_of(name):
    assert datadir.path_of(name).endswith(name)
