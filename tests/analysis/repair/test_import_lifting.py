"""Which imports a patch may lift to the top of a file: the standard library's."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from orderdep.analysis.repair import import_lifting


@pytest.fixture
def without_stdlib_module_names(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Python 3.9 has no ``sys.stdlib_module_names``."""
    monkeypatch.delattr(sys, "stdlib_module_names", raising=False)
    import_lifting.stdlib_names.cache_clear()
    yield
    import_lifting.stdlib_names.cache_clear()


@pytest.mark.parametrize("module", ["os", "os.path", "json", "sys", "collections.abc", "math"])
def test_standard_library_modules_are_stdlib(module: str) -> None:
    assert import_lifting._is_stdlib(module)


@pytest.mark.parametrize("module", ["pytest", "libcst", ".sibling", "orderdep.core"])
def test_other_modules_are_not(module: str) -> None:
    assert not import_lifting._is_stdlib(module)


@pytest.mark.usefixtures("without_stdlib_module_names")
def test_without_stdlib_module_names_the_directories_decide() -> None:
    for module in ("os", "json", "sys", "math", "collections.abc", "_thread"):
        assert import_lifting._is_stdlib(module), module
    for module in ("pytest", "libcst", "orderdep"):
        assert not import_lifting._is_stdlib(module), module
