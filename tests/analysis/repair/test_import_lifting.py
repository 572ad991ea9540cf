"""Imports a patch needs, lifted into the file's import block (repair.write.import_lifting)."""

from __future__ import annotations

import libcst as cst

from orderdep.analysis.repair.write.import_lifting import add_imports


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
