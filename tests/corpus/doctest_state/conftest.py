import pytest


@pytest.fixture(autouse=True)
def add_unit_label(doctest_namespace):
    doctest_namespace["unit_label"] = "cm"
