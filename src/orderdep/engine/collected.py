"""The suite a pytest process reports after collecting, or the error that explains why
there is none (shared by both backends)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

from orderdep.core.suite import Suite, TestInfo
from orderdep.engine.config import EngineConfig
from orderdep.errors import CollectionError, NoTestsError

IMPORT_HINT = (
    "The tests could not be imported the way `python -m pytest` imports them from the "
    "project root. If the project's code lives in a subdirectory, pass --pythonpath DIR "
    "(e.g. --pythonpath src); if pytest picks the wrong root directory, pass --rootdir DIR."
)


def _missing(texts: list[str]) -> Optional[str]:
    """What the collection errors could not import, when every one of them is an import
    error (so the interpreter, not the code, is the likely cause); else None."""
    names: list[str] = []
    for text in texts:
        found = re.search(r"No module named '([^']+)'|cannot import name '([^']+)'", text)
        if found is None:
            return None
        name = repr(found.group(1) or found.group(2))
        if name not in names:
            names.append(name)
    return ", ".join(names) or None


def suite_from_events(
    events: list[dict[str, Any]], config: EngineConfig, log: str, tree: Optional[Path] = None
) -> Suite:
    """The collected suite, or the error that explains why there is none.

    ``tree`` is the working copy pytest ran in: paths in messages are shown as the
    project's own paths.
    """

    def own(text: str) -> str:
        return text.replace(str(tree), str(config.project)) if tree is not None else text

    suites = [e for e in events if e.get("event") == "suite"]
    if not suites:
        raise CollectionError(
            "pytest did not get as far as collecting tests in "
            f"{str(config.project)!r}. Its output ends with:\n{own(log[-3000:])}"
        )
    data = suites[-1]
    errors = data.get("errors") or []
    if errors:
        text = own("\n".join(f"ERROR collecting {e['nodeid']}\n{e['text']}" for e in errors))
        hint = ""
        if "ImportError" in text or "ModuleNotFoundError" in text:
            missing = _missing([e["text"] for e in errors])
            if config.interpreter_note and missing:
                raise CollectionError(
                    f"pytest could not import {missing} with {config.python}; "
                    f"{config.interpreter_note}"
                )
            hint = "\n" + IMPORT_HINT
            if config.interpreter_note:
                hint += (
                    f" Looking for the project's interpreter, orderdep {config.interpreter_note}."
                )
        raise CollectionError(f"pytest could not collect the tests:\n{text}{hint}")
    tests = [TestInfo.from_json(t) for t in data["tests"]]
    if not tests:
        where = own(" ".join(data.get("args") or [])) or str(config.project)
        raise NoTestsError(
            f"pytest collected no tests in {str(config.project)!r} (looked in: {where}). "
            "Point orderdep at the project root (the directory with pytest.ini, "
            "pyproject.toml or setup.cfg), or set testpaths there."
        )
    return Suite(tests, rootdir=str(config.project))
