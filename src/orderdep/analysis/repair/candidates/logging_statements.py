"""Statements for a logger's configuration: its level, ``disabled`` flag (set by
``logging.config.dictConfig`` on every logger it does not name), ``propagate``, its
handlers, and ``logging.disable`` on the root logger.

The probe captures these as a dict literal
(:func:`~orderdep.analysis.state.process_roots.logger_settings`); a patch touches only
the settings that differ between the failing and the passing state.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from orderdep.analysis.repair.candidates.value_literals import settings_changes
from orderdep.analysis.repair.locate.root_info import RootInfo

Stmts = tuple[list[str], list[str]]  # statements, fixtures they need


def logging_changes(root: RootInfo) -> dict[str, Any]:
    """The settings of a logger root that differ, with their passing values."""
    return settings_changes(root)


def _logger(root: RootInfo) -> tuple[str, str]:
    """(expression reaching the logger, a variable name for it)."""
    name = root.name[len("logging:") :]
    if name == "root":
        return "logging.getLogger()", "root_logger"
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()
    return f"logging.getLogger({name!r})", f"{slug or 'named'}_logger"


def logging_restores(root: RootInfo) -> list[Stmts]:
    """Put the logger's differing settings back at the start of the OD test (``disabled``
    and ``propagate`` through ``monkeypatch``; a level through ``setLevel``, which also
    clears the loggers' caches)."""
    changes = logging_changes(root)
    expr, var = _logger(root)
    stmts: list[str] = []
    fixtures: list[str] = []
    for field in ("disabled", "propagate"):
        if field in changes:
            stmts.append(f"monkeypatch.setattr({var}, {field!r}, {changes[field]!r})")
            fixtures = ["monkeypatch"]
    if "level" in changes:
        stmts.append(f"{var}.setLevel({logging.getLevelName(changes['level'])!r})")
    if changes.get("handlers") == []:
        stmts.append(f"monkeypatch.setattr({var}, 'handlers', [])")
        fixtures = ["monkeypatch"]
    if "disable" in changes:
        stmts.append(f"logging.disable({changes['disable']!r})")
    if not stmts:
        return []
    return [(["import logging", f"{var} = {expr}", *stmts], fixtures)]


def logging_guards(root: RootInfo) -> list[Stmts]:
    """Make a test put the logger's settings it changes back when it ends."""
    changes = logging_changes(root)
    expr, var = _logger(root)
    stmts: list[str] = []
    fixtures: set[str] = set()
    imports = ["import logging"]
    for field in ("disabled", "propagate"):
        if field in changes:
            stmts.append(f"monkeypatch.setattr({var}, {field!r}, {var}.{field})")
            fixtures.add("monkeypatch")
    if "handlers" in changes:  # handlers it adds go to a copy of the list
        stmts.append(f"monkeypatch.setattr({var}, 'handlers', list({var}.handlers))")
        fixtures.add("monkeypatch")
    if "level" in changes:
        imports.append("import functools")
        stmts.append(f"request.addfinalizer(functools.partial({var}.setLevel, {var}.level))")
        fixtures.add("request")
    if "disable" in changes:
        imports.append("import functools")
        stmts.append(
            "request.addfinalizer(functools.partial(logging.disable, logging.root.manager.disable))"
        )
        fixtures.add("request")
    if not stmts:
        return []
    order: list[str] = [f for f in ("monkeypatch", "request") if f in fixtures]
    return [([*dict.fromkeys(imports), f"{var} = {expr}", *stmts], order)]
