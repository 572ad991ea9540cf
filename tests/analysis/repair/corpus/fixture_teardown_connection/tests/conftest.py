import pytest

import store


@pytest.fixture
def connection():
    yield store.CONNECTION
    store.CONNECTION.close()  # meant to close a private connection, closes the shared one
