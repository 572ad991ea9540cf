import pytest

import app


@pytest.fixture(scope="session")
def settings():
    return app.load_settings()
