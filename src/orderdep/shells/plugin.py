"""The ``orderdep`` pytest plugin (entry point ``pytest11``).

Idle and cheap unless one of its ``--orderdep-*`` options is given: it only registers
options here; the work lives in :mod:`orderdep.shells.plugin_deps` and is imported lazily.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orderdep", "order-dependent tests (orderdep)")
    group.addoption(
        "--orderdep-deps",
        dest="orderdep_deps",
        default=None,
        metavar="FILE",
        help="orderdep.deps/1 file: make every test order satisfy these dependencies.",
    )
    parser.addini("orderdep_deps", "orderdep.deps/1 file applied to every run", default="")
