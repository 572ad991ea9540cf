"""Positional arguments with help text on every click orderdep supports.

click 8.5 documents arguments itself (``click.argument(help=...)``, a "Positional
arguments" section in ``--help``); click 8.1 to 8.4, which Python 3.9 gets, has neither.
:class:`HelpArgument` takes ``help`` on all of them, and :class:`HelpCommand` writes the
section where click does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Optional, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
#: Whether this click writes the section itself.
NATIVE = hasattr(click.Command, "format_arguments")


class HelpArgument(click.Argument):
    """``click.Argument`` with ``help``, whatever the click version."""

    def __init__(
        self, param_decls: Sequence[str], required: Optional[bool] = None, **attrs: Any
    ) -> None:
        text = attrs.pop("help", None)
        super().__init__(param_decls, required=required, **attrs)
        self.help = text


def argument(*param_decls: str, **attrs: Any) -> Callable[[F], F]:
    """``click.argument`` with ``help`` on every click version. The decorator may be put
    on many commands: each gets a ``click.argument`` of its own, since click up to 8.1.3
    pops ``cls`` from the attributes it was given the first time its decorator runs
    (the next command then got a plain ``click.Argument``, which refuses ``help``)."""

    def decorator(func: F) -> F:
        made: Callable[[F], F] = click.argument(*param_decls, cls=HelpArgument, **attrs)
        return made(func)

    return decorator


class HelpCommand(click.Command):
    """Writes the "Positional arguments" section before the options on a click that
    does not."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if not NATIVE:
            rows = [
                (p.metavar or (p.name or "").upper(), p.help)
                for p in self.get_params(ctx)
                if isinstance(p, HelpArgument) and p.help
            ]
            if rows:
                with formatter.section("Positional arguments"):
                    formatter.write_dl(rows)
        super().format_options(ctx, formatter)


class HelpGroup(click.Group):
    """A group whose commands are :class:`HelpCommand` s."""

    command_class = HelpCommand
