"""The error a failed collection becomes: pytest's text with a hint, or one line when
only imports failed and orderdep found no interpreter of the project's to try."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdep.engine.collected import IMPORT_HINT, suite_from_events
from orderdep.engine.config import EngineConfig
from orderdep.errors import CollectionError

NOTE = "tried .venv (missing). Create the project's venv, or pass --python"
MISSING = "E   ModuleNotFoundError: No module named 'shop.models'"
SYNTAX = "E   SyntaxError: invalid syntax"


def fail(project: Path, note: str, *texts: str) -> str:
    config = EngineConfig(project, interpreter_note=note)
    errors = [{"nodeid": f"tests/test_{i}.py", "text": t} for i, t in enumerate(texts)]
    with pytest.raises(CollectionError) as info:
        suite_from_events([{"event": "suite", "errors": errors, "tests": []}], config, "")
    return str(info.value)


def test_only_import_failures_are_one_line(tmp_path: Path) -> None:
    config = EngineConfig(tmp_path)
    assert fail(tmp_path, NOTE, MISSING, MISSING) == (
        f"pytest could not import the tests with {config.python}: "
        f"No module named 'shop.models'; {NOTE}"
    )
    (tmp_path / "src" / "shop").mkdir(parents=True)
    assert fail(tmp_path, NOTE, MISSING).endswith(
        f"{NOTE}; or, if the code is meant to come from src/, pass --pythonpath src"
    )


def test_other_failures_keep_pytests_text_and_say_what_was_tried(tmp_path: Path) -> None:
    message = fail(tmp_path, NOTE, MISSING, SYNTAX)
    assert message.startswith("pytest could not collect the tests:\n")
    assert SYNTAX in message and MISSING in message
    assert message.endswith(
        f"{IMPORT_HINT} Looking for the project's interpreter, orderdep {NOTE}."
    )
    # an interpreter the user named (or found): no note, pytest's text and the hint
    message = fail(tmp_path, "", MISSING)
    assert MISSING in message and message.endswith(IMPORT_HINT)
