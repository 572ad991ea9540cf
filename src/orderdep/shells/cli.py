"""``orderdep`` command line: ``main(argv) -> exit code``; only this turns errors into messages.

Exit codes: 0 success (nothing order-dependent found), 1 findings (OD tests, failing
tests), 2 usage, collection or input errors (one line on stderr, no traceback), 130 after
Ctrl-C, 143 after SIGTERM, 129 after SIGHUP (finished orders are kept in the store; child
processes and working directories are removed first).
"""

from __future__ import annotations

import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, Optional

import click

from orderdep.errors import OrderdepError, shown_path
from orderdep.shells.app import cli
from orderdep.shells.exitcodes import INTERNAL_ERROR

#: Signals that stop orderdep the way Ctrl-C does, and their exit codes (128 + number).
STOP_SIGNALS = {signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM or SIGHUP: unwinds like Ctrl-C."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.exit_code = 128 + signum
        super().__init__(STOP_SIGNALS.get(signal.Signals(signum), str(signum)))


def _ignore(signum: int, frame: Optional[FrameType]) -> None:
    """A signal that comes while the command unwinds (a Python handler, not ``SIG_IGN``:
    a process started meanwhile gets the default back at ``exec``)."""


def _unwinding() -> None:
    # Only the first signal unwinds; more of them (Ctrl-C pressed twice) must not break
    # the clean-up, which kills the command's processes and removes its directories.
    for sig in (signal.SIGINT, *STOP_SIGNALS):
        signal.signal(sig, _ignore)


def _raise_terminated(signum: int, frame: Optional[FrameType]) -> None:
    _unwinding()
    raise Terminated(signum)


def _raise_interrupt(signum: int, frame: Optional[FrameType]) -> None:
    _unwinding()
    raise KeyboardInterrupt


@contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated`, and Ctrl-C ``KeyboardInterrupt`` (when
    it is not ignored), while the command runs (main thread only); further signals are
    ignored while it unwinds, and the previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, *STOP_SIGNALS)}
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_terminated)
    if previous[signal.SIGINT] is signal.default_int_handler:
        signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _usage_line(exc: click.UsageError) -> str:
    path = exc.ctx.command_path if exc.ctx is not None else "orderdep"
    message = exc.format_message().rstrip(".").replace("\n", " ")
    return f"orderdep: error: {message}; see `{path} --help`"


def _interrupted(exc: BaseException) -> int:
    if isinstance(exc, Terminated):
        click.echo(f"orderdep: stopped by {exc}; finished orders are kept in the store.", err=True)
        return exc.exit_code
    click.echo("orderdep: interrupted; finished orders are kept in the store.", err=True)
    return 130


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    from orderdep.engine.interrupts import registered, sweep

    args = list(sys.argv[1:] if argv is None else argv)
    earlier = registered()  # of a caller in this process, not of this command
    try:
        return _main(args)
    finally:
        # The last line of defence: whatever the engine started and its clean-up missed
        # (a stop signal at an unlucky moment) does not outlive the command.
        sweep(keep=earlier)


def _main(args: list[str]) -> int:
    obj: dict[str, Any] = {"argv": args}
    try:
        with stop_signals():
            result = cli.main(args=args, prog_name="orderdep", standalone_mode=False, obj=obj)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.UsageError as exc:
        click.echo(_usage_line(exc), err=True)
        return 2
    except click.ClickException as exc:
        click.echo(f"orderdep: error: {exc.format_message()}", err=True)
        return 2
    except click.exceptions.Abort as exc:
        return _interrupted(exc.__cause__ or exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except OrderdepError as exc:
        click.echo(f"orderdep: error: {exc}", err=True)
        return exc.exit_code
    except OSError as exc:
        if exc.filename is None:
            raise
        # A file orderdep had to write or read: name it instead of a traceback.
        click.echo(
            f"orderdep: error: cannot use {shown_path(exc.filename)!r}: "
            f"{exc.strerror or exc}; check the path, or pass an option that puts the "
            "file elsewhere (see --help)",
            err=True,
        )
        return 2
    except Exception as exc:  # a bug of orderdep's: never mistaken for findings (exit 1)
        traceback.print_exc()
        click.echo(
            f"orderdep: internal error: {type(exc).__name__}: {exc}; this is a bug in "
            "orderdep, not a finding about your tests: please report it with the traceback "
            "above. Finished orders are kept in the store; rerunning resumes from them",
            err=True,
        )
        return INTERNAL_ERROR
    return int(result or 0)


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
