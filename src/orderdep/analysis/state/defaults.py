"""A function's default arguments as state.

A mutable default (``def request(self, url, headers={})``) that a call changes in place
keeps the change for every later call, and so for every later test: the function is the
same object, but what it does has changed. Loaded inside test processes: imports nothing
heavy.
"""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING, Any, Optional

# defaults a call can change in place
MUTABLE_DEFAULTS = (dict, list, set, bytearray, collections.deque)

if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Defaults = tuple[Optional[tuple[Any, ...]], Optional[dict[str, Any]]]


def mutable_defaults(value: object) -> Optional[Defaults]:
    """(``__defaults__``, ``__kwdefaults__``) of a plain function when one of its default
    values can change in place; None otherwise (and for anything but a function)."""
    if type(value) is not types.FunctionType:
        return None
    defaults, kwdefaults = value.__defaults__, value.__kwdefaults__
    values = [*(defaults or ()), *(kwdefaults or {}).values()]
    if any(isinstance(v, MUTABLE_DEFAULTS) for v in values):
        return defaults, kwdefaults
    return None


def put_defaults(function: types.FunctionType, saved: Defaults) -> None:
    """Give ``function`` the defaults ``saved`` (copies of what :func:`mutable_defaults`
    returned: the caller copies)."""
    function.__defaults__, function.__kwdefaults__ = saved
