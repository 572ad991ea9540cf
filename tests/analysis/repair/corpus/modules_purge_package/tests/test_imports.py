import sys

import pytest

SUBMODULES = ["records", "store", "text"]


@pytest.fixture
def clean_modules():
    yield
    # each submodule must import on its own, without what another one imported
    for name in sorted(sys.modules):
        if name.startswith("toolbox"):
            sys.modules.pop(name)


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_imports(name, clean_modules):
    __import__(f"toolbox.{name}")
