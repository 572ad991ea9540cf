import pytest

PACKAGE_SETUPS: list[str] = []


@pytest.fixture(scope="package")
def package_db():
    PACKAGE_SETUPS.append("up")
    db = {"rows": []}
    yield db
    PACKAGE_SETUPS.append("down")
