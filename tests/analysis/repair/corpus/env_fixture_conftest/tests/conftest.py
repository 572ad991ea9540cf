import os

import pytest


@pytest.fixture
def offline():
    os.environ["NETCLIENT_OFFLINE"] = "1"
