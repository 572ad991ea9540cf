import pytest

import shop


@pytest.fixture(scope="session")
def catalog():
    return shop.Catalog.from_defaults()


@pytest.fixture(scope="class")
def catalog_on_class(request, catalog):
    request.cls.catalog = catalog
