"""The suite a pytest process reports after collecting, or the error that explains why
there is none (shared by both backends)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, Optional

from orderdep.core.suite import Suite, TestInfo
from orderdep.engine.config import EngineConfig
from orderdep.errors import CollectionError, NoTestsError, UsageError

IMPORT_HINT = (
    "The tests could not be imported the way `python -m pytest` imports them from the "
    "project root. If the project's code lives in a subdirectory, pass --pythonpath DIR "
    "(e.g. --pythonpath src); if pytest picks the wrong root directory, pass --rootdir DIR."
)


_IMPORT_FAILURE = re.compile(r"No module named '([^'.]+)[^']*'|cannot import name '[^']+'")


def _import_failures(texts: list[str]) -> list[re.Match[str]]:
    """Each collection error's import failure, or none at all unless every error is one
    (then the interpreter, not the code, is the likely cause)."""
    found = [_IMPORT_FAILURE.search(text) for text in texts]
    return [m for m in found if m is not None] if all(found) else []


def _interpreter_error(config: EngineConfig, failures: list[re.Match[str]]) -> str:
    """One line: what pytest could not import with which interpreter, what was tried, and
    the project directory a missing module lives in (then --pythonpath may be the fix)."""
    said = list(dict.fromkeys(m.group(0) for m in failures))
    line = f"pytest could not import the tests with {config.python}: {', '.join(said)}; "
    line += config.interpreter_note
    names = {m.group(1) for m in failures if m.group(1)}
    homes = sorted(
        place.parent.name
        for place in config.project.glob("*/*")
        if place.stem in names
        and (place.suffix == ".py" or place.is_dir())
        and not place.parent.name.startswith(".")
    )
    if homes:
        line += f"; or, if the code is meant to come from {homes[0]}/, pass --pythonpath {homes[0]}"
    return line


#: How pytest words the usage errors it reports after (or instead of) collecting: a bad
#: ``-k``/``-m`` expression, an unknown option, a path that does not exist.
USAGE_ERRORS = re.compile(
    r"^ERROR: ((?:Wrong expression passed to|usage:|file or directory not found:|"
    r"not found:|found no collectors for).*)$",
    re.M,
)


def usage_error(log: str) -> Optional[str]:
    """pytest's own usage error in its output, if it reported one."""
    found = USAGE_ERRORS.search(log)
    return found[1].strip() if found else None


_PLACE = re.compile(r'^E\s+File "(?P<file>[^"]+)", line (?P<line>\d+)', re.M)
_RAISED = re.compile(r"^E\s+(?P<error>(?:SyntaxError|IndentationError|TabError)\b.*)$", re.M)


def _syntax_error(nodeid: str, text: str) -> Optional[str]:
    """``tests/x.py:3: SyntaxError: invalid syntax``, or None when the collection error
    is not a syntax error pytest reported with its place."""
    place, raised = _PLACE.search(text), _RAISED.search(text)
    if place is None or raised is None:
        return None
    return f"cannot collect {nodeid}: {raised['error']} at line {place['line']}"


def _id_root(data: dict[str, Any], tree: Optional[Path]) -> str:
    """pytest's rootdir relative to the tree it ran in, when it lies inside it."""
    rootdir = data.get("rootdir")
    if tree is None or not isinstance(rootdir, str) or not rootdir:
        return ""
    try:
        rel = Path(rootdir).resolve().relative_to(tree.resolve())
    except ValueError:
        return ""
    return "" if str(rel) == "." else rel.as_posix()


def suite_from_events(
    events: list[dict[str, Any]], config: EngineConfig, log: str, tree: Optional[Path] = None
) -> Suite:
    """The collected suite, or the error that explains why there is none (pytest's own
    usage error as one line, when it reported one: a bad ``-k`` expression, say).

    ``tree`` is the working copy pytest ran in: paths in messages are shown as the
    project's own paths.
    """

    def own(text: str) -> str:
        return text.replace(str(tree), str(config.project)) if tree is not None else text

    said = usage_error(log)
    if said is not None:
        raise UsageError(f"pytest: {own(said)}; see `python -m pytest --help`")

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
            failures = _import_failures([e["text"] for e in errors])
            if config.interpreter_note and failures:
                raise CollectionError(_interpreter_error(config, failures))
            hint = "\n" + IMPORT_HINT
            if config.interpreter_note:
                hint += (
                    f" Looking for the project's interpreter, orderdep {config.interpreter_note}."
                )
        short = [_syntax_error(e["nodeid"], own(e["text"])) for e in errors]
        if all(short):
            shown = " ".join(shlex.quote(e["nodeid"]) for e in errors)
            raise CollectionError(
                "; ".join(str(line) for line in short)
                + f"; see the rest with `python -m pytest --collect-only -q {shown}` in "
                f"{str(config.project)!r}"
            )
        raise CollectionError(f"pytest could not collect the tests:\n{text}{hint}")
    tests = [TestInfo.from_json(t) for t in data["tests"]]
    deselected = data.get("deselected") or 0
    if not tests and deselected:
        args = list(config.pytest_args)
        chosen = [
            shlex.join(args[i : i + 2])
            for i, a in enumerate(args)
            if a in ("-k", "-m", "--deselect") and i + 1 < len(args)
        ]
        by = f" ({', '.join(chosen)})" if chosen else ""
        raise NoTestsError(
            f"pytest collected {deselected} test(s) in {str(config.project)!r} and the "
            f"selection{by} deselected every one: nothing to run; check the expression"
        )
    if not tests:
        where = own(" ".join(data.get("args") or [])) or str(config.project)
        raise NoTestsError(
            f"pytest collected no tests in {str(config.project)!r} (looked in: {where}). "
            "Point orderdep at the project root (the directory with pytest.ini, "
            "pyproject.toml or setup.cfg), or set testpaths there."
        )
    suite = Suite(tests, rootdir=str(config.project), id_root=_id_root(data, tree))
    code = data.get("code")
    if isinstance(code, dict):
        suite.code = {str(k): [str(x) for x in v] for k, v in code.items() if isinstance(v, list)}
    return suite


def code_notices(suite: Suite) -> list[str]:
    """What the user should know about where the tests import the project's code from."""
    out = []
    early = suite.code.get("from_origin") or []
    if early:
        shown = ", ".join(early[:3]) + (f" and {len(early) - 3} more" if len(early) > 3 else "")
        out.append(
            f"orderdep: {len(early)} module(s) of the project were imported from its own "
            f"tree before orderdep's plugin loaded ({shown}), so orders run them from "
            "there, not from the working copy: a patch to them is verified against the "
            "original files. Load the plugin that imports them after orderdep's (-p)"
        )
    installed = suite.code.get("installed") or []
    if installed:
        out.append(
            f"orderdep: the tests import {', '.join(installed)} from a non-editable install "
            "(site-packages), not from the project's tree: patches go into the tests; "
            "install it editable (pip install -e .) to let fixes change its code"
        )
    return out
