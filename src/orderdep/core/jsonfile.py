"""Reading and writing orderdep's JSON files with messages that name the file.

Every failure becomes a :class:`~orderdep.errors.ReportError` that says which file, what
is wrong with it and what to do: missing, a directory, unreadable, not UTF-8, not JSON;
and, when writing, a directory that cannot be created or written (read-only, full).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Union

from orderdep.errors import ReportError, shown_path

PathLike = Union[str, "os.PathLike[str]"]


def load_json_file(path: PathLike, what: str, create_hint: str) -> Any:
    """Read a JSON file, turning a missing or unparsable file into a :class:`ReportError`.

    ``what`` names the file's role ("report", "dependencies file"); ``create_hint`` says
    how to create one (shown when the file is missing).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"no {what} at {str(p)!r}; {create_hint}") from None
    except IsADirectoryError:
        raise ReportError(f"{str(p)!r} is a directory, not a {what} file.") from None
    except OSError as exc:
        raise ReportError(f"cannot read {what} {str(p)!r}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:
        raise ReportError(
            f"{what} {str(p)!r} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
            f"offset {exc.start}); it is not a file orderdep wrote: fix it or re-create it."
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"{what} {str(p)!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); fix the file or re-create it."
        ) from None


def write_text_file(path: PathLike, text: str, what: str, option: str) -> None:
    """Write ``text`` atomically (a crash leaves the old file); ``option`` is the command
    option that puts the file elsewhere, named when the place is not writable."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    except OSError as exc:
        where = shown_path(exc.filename) if exc.filename else shown_path(p)
        raise ReportError(
            f"cannot write the {what} {shown_path(p)!r} ({where!r}: {exc.strerror or exc}); "
            f"pass {option} to write it in a writable place"
        ) from None
