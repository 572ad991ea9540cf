"""Settings a library keeps behind a getter and a setter, as roots ``setting:<name>``.

``numpy.set_printoptions(precision=4)`` in one test (a doctest, often) changes how every
later test prints an array, yet no name of any module is rebound: numpy keeps the value
where no module global shows it the same way in every version. Such a setting is read
and written only through its functions, so it is watched through them too: the getter is
called (only when its module is imported already: watching never imports a library, and
never in a way that changes it) and
its value fingerprinted; the setter puts a saved value back, and a patch says the same
with the library's own calls (``numpy.set_printoptions(**saved)``).

Pure data and calls: no pytest import.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

PREFIX = "setting:"


if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Keywords = tuple[tuple[str, Any], ...]


def _keywords(pairs: Keywords) -> str:
    return "".join(f", {k}={v!r}" for k, v in pairs)


@dataclass(frozen=True)
class Setting:
    """One setting: the module that must be imported, its getter and setter (attribute
    names), whether the setter takes the getter's dict as keywords, and keywords each
    call needs (``get_start_method(allow_none=True)`` reads without fixing the method;
    ``set_start_method(m, force=True)`` may set it again)."""

    name: str
    module: str
    getter: str
    setter: str
    keywords: bool
    get_with: Keywords = ()
    set_with: Keywords = ()

    @property
    def root(self) -> str:
        return PREFIX + self.name

    def get_text(self, module: str) -> str:
        """The getter called on ``module`` (the name a patch reaches the module by)."""
        return f"{module}.{self.getter}({_keywords(self.get_with)[2:]})"

    def set_call(self, module: str, value: str) -> str:
        """The setter called with ``value`` (an expression)."""
        spread = "**" if self.keywords else ""
        return f"{module}.{self.setter}({spread}{value}{_keywords(self.set_with)})"

    def put_back_later(self, module: str) -> str:
        """A finalizer that puts the current value back when the test ends (``request``
        and ``functools`` in scope)."""
        spread = "**" if self.keywords else ""
        return (
            f"request.addfinalizer(functools.partial({module}.{self.setter}, "
            f"{spread}{self.get_text(module)}{_keywords(self.set_with)}))"
        )


SETTINGS = (
    Setting("numpy.printoptions", "numpy", "get_printoptions", "set_printoptions", True),
    Setting("numpy.errstate", "numpy", "geterr", "seterr", True),
    Setting("socket.defaulttimeout", "socket", "getdefaulttimeout", "setdefaulttimeout", False),
    Setting("sys.recursionlimit", "sys", "getrecursionlimit", "setrecursionlimit", False),
    Setting("multiprocessing.start_method", "multiprocessing", "get_start_method",
            "set_start_method", False, (("allow_none", True),), (("force", True),)),
)  # fmt: skip
BY_ROOT = {s.root: s for s in SETTINGS}


def setting_of(root: str) -> Optional[Setting]:
    """The setting a root name ``setting:<name>`` stands for (None: not one)."""
    return BY_ROOT.get(root)


def current(setting: Setting) -> tuple[bool, Any]:
    """(whether its module is imported, the getter's value); never imports it."""
    module = sys.modules.get(setting.module)
    getter = getattr(module, setting.getter, None) if module is not None else None
    if getter is None:
        return False, None
    try:
        return True, getter(**dict(setting.get_with))
    except Exception:  # a library half set up, or a getter that fails here
        return False, None


def put_back(setting: Setting, value: Any) -> None:
    """Call the setter with ``value`` (the getter's earlier answer)."""
    module = sys.modules.get(setting.module)
    setter = getattr(module, setting.setter)
    if setting.keywords:
        setter(**value, **dict(setting.set_with))
    else:
        setter(value, **dict(setting.set_with))


def value_fingerprint(value: Any) -> int:
    """The same for equal values of a setting in any process (a dict by its sorted
    items' text: its values may be unhashable)."""
    if isinstance(value, dict):
        return hash(repr(sorted(value.items(), key=lambda item: str(item[0]))))
    return hash(repr(value))


def fingerprints(out: dict[str, int]) -> None:
    """Add ``setting:<name>`` for every setting whose module is imported."""
    for setting in SETTINGS:
        present, value = current(setting)
        if present:
            out[setting.root] = value_fingerprint(value)
