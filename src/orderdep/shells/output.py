"""How every command prints: ``--quiet``, ``--json``, and colours only on a terminal.

``--quiet`` drops progress and notices (stderr); results and errors stay. ``--json``
prints one JSON document on stdout instead of the text: ``{"command", "exit_code",
...}`` with what the command recorded through :func:`set_result` (its findings, written
files, orders); a command that records nothing gives its text lines under ``"lines"``.
Errors stay one line on stderr with exit code 2 and nothing on stdout. Colours come from
rich and click, which use them only when the stream is a terminal (and ``NO_COLOR`` is
unset). The options are added to every command at once by :func:`add_output_options`.
"""

from __future__ import annotations

import functools
import io
import json
from contextlib import redirect_stdout
from typing import Any, Callable

import click
from rich.console import Console

QUIET_KEY = "orderdep.quiet"
JSON_KEY = "orderdep.json"
RESULT_KEY = "orderdep.result"


def quiet_option() -> click.Option:
    return click.Option(
        ["--quiet", "-q", "quiet"],
        is_flag=True,
        default=False,
        help="Print no progress or notices, only the results and errors (default: "
        "progress on stderr).",
    )


def json_option() -> click.Option:
    return click.Option(
        ["--json", "as_json"],
        is_flag=True,
        default=False,
        help="Print the result as one JSON document on stdout instead of text (default: text).",
    )


def _meta() -> dict[str, Any]:
    ctx = click.get_current_context(silent=True)
    return ctx.meta if ctx is not None else {}


def quiet() -> bool:
    """True under ``--quiet`` or ``--json`` (nothing but the document is printed)."""
    return bool(_meta().get(QUIET_KEY))


def wants_json() -> bool:
    return bool(_meta().get(JSON_KEY))


def notice(message: str) -> None:
    """A progress line or notice on stderr, unless ``--quiet``/``--json``."""
    if not quiet():
        click.echo(message, err=True)


def stderr_console() -> Console:
    """The rich console for progress: silent under ``--quiet``/``--json``."""
    return Console(stderr=True, quiet=quiet())


def set_result(**fields: Any) -> None:
    """Record what the running command found or wrote, for ``--json``."""
    _meta().setdefault(RESULT_KEY, {}).update(fields)


def _wrap(callback: Callable[..., Any], native_json: bool) -> Callable[..., Any]:
    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        as_json = bool(kwargs.get("as_json"))
        ctx.meta[QUIET_KEY] = bool(kwargs.pop("quiet", False)) or as_json
        ctx.meta[JSON_KEY] = as_json
        if native_json:
            return callback(*args, **kwargs)
        del kwargs["as_json"]
        if not as_json:
            return callback(*args, **kwargs)
        text = io.StringIO()
        with redirect_stdout(text):
            code = callback(*args, **kwargs)
        result = ctx.meta.get(RESULT_KEY)
        if result is None:
            result = {"lines": text.getvalue().splitlines()}
        document = {"command": ctx.command_path, "exit_code": int(code or 0), **result}
        click.echo(json.dumps(document, indent=2, ensure_ascii=False, default=str))
        return code

    return run


def add_output_options(command: click.Command) -> None:
    """Give ``command`` (and every subcommand of a group) ``--quiet`` and ``--json``; a
    command with its own ``--json`` keeps it (its output is already the document)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_output_options(sub)
        return
    names = {p.name for p in command.params}
    if "quiet" in names or command.callback is None:
        return
    native = "as_json" in names
    command.params += [quiet_option()] if native else [quiet_option(), json_option()]
    command.callback = _wrap(command.callback, native)
