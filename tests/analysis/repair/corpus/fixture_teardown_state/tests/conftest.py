import pytest

import kv


@pytest.fixture
def maintenance():
    kv.set_mode("maintenance")
    yield
    kv.set_mode("readonly")  # leaves the store read-only
