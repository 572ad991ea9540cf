"""A report's test ids as a manifest writes them.

orderdep names tests by pytest's node ids, relative to pytest's rootdir. When that
rootdir is a directory inside the checkout (an ini file in ``tests/``), the ids start
there (``unit/test_main.py::test_finish``), while a manifest writes the path plain pytest
takes from the checkout (``tests/unit/test_main.py::test_finish``). The runner scores,
and checks with plain pytest, the report's ids with that directory put in front.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

ID_KEYS = ("test", "failing_order", "passing_order", "polluters", "state_setters")
GROUP_KEYS = ("polluter_groups", "state_setter_groups")


def _dirs(path: str) -> list[str]:
    """``path``'s directories, deepest first (``a/b/c.py`` -> ``a/b``, ``a``)."""
    parents = PurePosixPath(path.split("::", 1)[0]).parents
    return [p.as_posix() for p in parents if p.as_posix() != "."]


def id_prefix(source: Path, tests: list[str], entry: dict[str, Any]) -> str:
    """The directory of ``source`` the report's ids start from ("" for ``source``)."""
    files = sorted({t.split("::", 1)[0] for t in tests})
    if not files or all((source / f).exists() for f in files):
        return ""
    named = [r["test"] for r in entry.get("known", [])]
    named += [a for a in entry.get("pytest_args") or [] if not a.startswith("-")]
    for where in dict.fromkeys(d for n in named for d in [n.split("::", 1)[0], *_dirs(n)]):
        if all((source / where / f).exists() for f in files):
            return where
    return ""


def as_listed(report: dict[str, Any], source: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """``report`` with its ids under :func:`id_prefix` (unchanged when it is "")."""
    prefix = id_prefix(source, list(report.get("tests") or []), entry)
    if not prefix:
        return report

    def moved(test: str) -> str:
        return f"{prefix}/{test}"

    findings = []
    for finding in report.get("od_tests") or []:
        new = dict(finding)
        new["test"] = moved(finding["test"])
        for key in ID_KEYS[1:]:
            new[key] = [moved(t) for t in finding.get(key) or []]
        for key in GROUP_KEYS:
            new[key] = [[moved(t) for t in g] for g in finding.get(key) or []]
        findings.append(new)
    return {**report, "tests": [moved(t) for t in report.get("tests") or []], "od_tests": findings}
