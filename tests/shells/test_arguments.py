"""Positional arguments with help on every click orderdep supports."""

from __future__ import annotations

from typing import Any, Callable

import click
import pytest

from orderdep.shells import arguments
from orderdep.shells.arguments import HelpArgument


def _click_8_1_3_argument(*param_decls: str, **attrs: Any) -> Callable[[Any], Any]:
    """click.argument as click 8.1.3 has it: the decorator pops ``cls`` from the one
    attribute dict it was given, so a second use of it makes a plain Argument."""

    def decorator(f: Any) -> Any:
        argument_class = attrs.pop("cls", None) or click.Argument
        click.decorators._param_memo(f, argument_class(param_decls, **attrs))  # type: ignore[attr-defined]
        return f

    return decorator


def test_one_argument_decorator_on_many_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(click, "argument", _click_8_1_3_argument)
    project = arguments.argument("project", required=False, help="The project.")

    @project
    def first(project: str) -> None:
        pass

    @project
    def second(project: str) -> None:
        pass

    for command in (first, second):
        (param,) = command.__click_params__  # type: ignore[attr-defined]
        assert isinstance(param, HelpArgument) and param.help == "The project."
