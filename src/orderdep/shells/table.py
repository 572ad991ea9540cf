"""Plain-text tables for the terminal: columns aligned with spaces, never wrapped or cut,
so every cell (test ids included) can be copied whole, and a test can split a row on runs
of two spaces."""

from __future__ import annotations

from collections.abc import Sequence

#: Spaces between two columns (a cell never holds two spaces in a row).
GAP = "  "


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """The header line then one line per row, each column as wide as its widest cell;
    trailing spaces dropped."""
    widths = [len(h) for h in headers]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"a row of {len(row)} cells under {len(headers)} headers: {row!r}")
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    return [
        (indent + GAP.join(cell.ljust(w) for cell, w in zip(line, widths))).rstrip()
        for line in (headers, *rows)
    ]
