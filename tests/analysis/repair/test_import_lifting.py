"""Imports a patch needs, lifted into the file's import block, and which ones may be lifted:
the standard library's (repair.write.import_lifting)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import libcst as cst
import pytest

from orderdep.analysis.repair.write import import_lifting
from orderdep.analysis.repair.write.import_lifting import add_imports


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


def lifted(source: str, *imports: str) -> str:
    return add_imports(cst.parse_module(source), list(imports)).code


def test_a_name_joins_an_unsorted_from_import_after_the_names_there() -> None:
    """The names there keep their order (isort's classes-first style, say): the patch
    touches only what it adds."""
    source = "from marshmallow import Schema, fields, missing as missing_\n\nx = 1\n"
    new = lifted(source, "from marshmallow import class_registry")
    assert new.splitlines()[0] == (
        "from marshmallow import Schema, fields, missing as missing_, class_registry"
    )


def test_a_name_takes_its_sorted_place_in_a_sorted_from_import() -> None:
    source = "from app import alpha, gamma\n"
    assert lifted(source, "from app import beta").splitlines()[0] == (
        "from app import alpha, beta, gamma"
    )


def test_a_parenthesized_import_keeps_one_name_per_line() -> None:
    source = "from app import (\n    Zeta,\n    alpha,\n)\n"
    assert lifted(source, "from app import beta") == (
        "from app import (\n    Zeta,\n    alpha,\n    beta,\n)\n"
    )
