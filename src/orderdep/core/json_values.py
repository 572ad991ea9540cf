"""Values read from orderdep's JSON files, checked one by one.

Each ``expect_*`` returns the value when it has the wanted shape and otherwise raises a
:class:`~orderdep.errors.ReportError` that names where the bad value is (``where``, e.g.
``od_tests[3].polluters``) and shows it.
"""

from __future__ import annotations

from typing import Any

from orderdep.errors import ReportError


def expect_object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReportError(f"{where} must be a JSON object, got {value!r}.")
    return value


def expect_str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ReportError(f"{where} must be a string, got {value!r}.")
    return value


def expect_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReportError(f"{where} must be an integer, got {value!r}.")
    return value


def expect_float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReportError(f"{where} must be a number, got {value!r}.")
    return float(value)


def expect_ids(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise ReportError(f"{where} must be a list of test ids, got {value!r}.")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ReportError(f"{where}[{i}] must be a test id string, got {item!r}.")
    return list(value)


def expect_groups(value: Any, where: str) -> list[list[str]]:
    if not isinstance(value, list):
        raise ReportError(f"{where} must be a list of groups (lists of test ids), got {value!r}.")
    return [expect_ids(g, f"{where}[{i}]") for i, g in enumerate(value)]
