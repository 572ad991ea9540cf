"""Statements of a patch, parsed into libcst nodes to be placed in a function body.

A statement may span lines (a loop, a call with a triple-quoted string): placed as a
node, libcst indents its block and leaves the text inside its strings as it was, where
prefixing each line with spaces would change the string.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from orderdep.errors import UsageError

TRIPLE_QUOTES = ("'" * 3, '"' * 3)


class DoubleQuotes(cst.CSTTransformer):
    """``'text'`` -> ``"text"`` where that needs no escaping (generated code uses repr)."""

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.SimpleString:
        value = updated.value
        prefix = value[: len(value) - len(value.lstrip("rRbBuU"))]
        body = value[len(prefix) :]
        plain = body.startswith("'") and not body.startswith(TRIPLE_QUOTES)
        if plain and not set(body[1:-1]) & {'"', "\\"}:
            return updated.with_changes(value=f'{prefix}"{body[1:-1]}"')
        return updated


def parse_statements(code: Iterable[str], double: bool = False) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    for text in code:
        try:
            module = cst.parse_module(text.strip() + "\n")
        except cst.ParserSyntaxError:
            raise UsageError(f"a statement of the patch does not parse: {text.strip()!r}") from None
        if double:
            module = module.visit(DoubleQuotes())
        out.extend(module.body)
    return out


def function_body(statements: Iterable[str], leading: list[cst.EmptyLine]) -> cst.IndentedBlock:
    """An indented block of ``statements`` (``pass`` when there are none), the first of
    them preceded by the comment lines ``leading``."""
    nodes = parse_statements(statements) or [cst.SimpleStatementLine([cst.Pass()])]
    first = nodes[0].with_changes(leading_lines=leading)
    return cst.IndentedBlock(body=[first, *nodes[1:]])


__all__ = ["TRIPLE_QUOTES", "DoubleQuotes", "function_body", "parse_statements"]
