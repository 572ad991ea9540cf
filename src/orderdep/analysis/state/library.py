"""Functions, classes and registries of the library modules a project imports, as roots.

A test that replaces a library function for good (``iterables.time.sleep = MagicMock()``,
``requests.get = fake``), or leaves entries in a library's registry (a ``Service`` made
by a test stays in ``cornice.service.SERVICES``), changes no name of the project's own
modules: the module object they hold is the same. :class:`LibraryFunctions` makes each
public callable, list, dict and set of every library module that a project module holds
as a global (``import time`` in the project), or whose class or function it holds
(``from cornice.service import Service``), and of the modules those hold (``os.path``),
a root (``time.sleep``), fingerprinted by what it is (a function or class by its module
and qualified name, a container by its type and size, anything else by its type), so the
fingerprint is the same in any process and a replacement or a new entry shows as a
write. Only the repair debugger's probe turns this on
(:attr:`~orderdep.analysis.state.roots.RootsConfig.library_functions`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from types import ModuleType
from typing import Any

#: Library modules whose callables are never roots: the interpreter's own machinery and
#: the test runner (a test does not replace them, and pytest rebinds some on its own).
NEVER = ("builtins", "sys", "_pytest", "pytest", "pluggy", "importlib", "typing", "abc")
#: Never roots either, by exact name (``posixpath`` is ``os.path``): ``os``'s C
#: implementation, whose ``environ`` dict is the store behind ``os.environ``; the
#: environment's own roots (``$NAME``) show what a test changes there.
OS_STORE = ("posix", "nt")

_NAMED = (types.FunctionType, types.BuiltinFunctionType, type)


#: Module-level values of a library watched by their type and size: registries a test
#: leaves entries in (``cornice.service.SERVICES``), whatever their items are.
CONTAINERS = (list, dict, set)


def what_it_is(value: Any) -> int:
    """A fingerprint of ``value`` that is the same in every process: a function or class by
    its module and qualified name, a list, dict or set by its type and size, anything else
    (a mock, an instance) by its type."""
    try:
        if isinstance(value, CONTAINERS):
            return hash(("container", type(value).__name__, len(value)))
        if isinstance(value, _NAMED):
            name = (getattr(value, "__module__", None), getattr(value, "__qualname__", None))
            return hash(("named", type(value).__name__, name))
        kind = type(value)
        return hash(("object", kind.__module__, kind.__qualname__))
    except Exception:  # a value that fails when looked at
        return hash(("unknown",))


class LibraryFunctions:
    """The roots ``lib.mod.attr`` of the library modules the project's modules import."""

    def __init__(self, exclude: tuple[str, ...]) -> None:
        self.exclude = (*exclude, *NEVER)
        self._names: dict[str, list[str]] = {}  # module -> its public callables at first sight
        self.names: frozenset[str] = frozenset()  # the library modules of the last snapshot

    def modules(
        self, project: Iterable[tuple[str, ModuleType, str]], names: frozenset[str]
    ) -> dict[str, ModuleType]:
        """Library modules held as globals by the project's modules, and the modules those
        hold, by the name a test reaches them with: ``os.path`` (``posixpath``'s own name
        only when a project module holds it itself)."""
        out: dict[str, ModuleType] = {}
        seen: set[int] = set()
        held = [(m.__name__, m) for _, module, _ in project for _, m in _modules_in(module)]
        # the modules of the classes and functions a project module imports by name
        # (``from cornice.service import Service``: cornice.service's registry)
        held += [(m.__name__, m) for _, module, _ in project for m in _defining_modules(module)]
        for depth in range(2):
            deeper = []
            for name, value in held:
                if not isinstance(name, str) or name in names or id(value) in seen:
                    continue
                own = getattr(value, "__name__", None)
                if not isinstance(own, str) or own in names:
                    continue
                if any(n.partition(".")[0] in (*self.exclude, *OS_STORE) for n in (name, own)):
                    continue
                if name.startswith(self.exclude) or own.startswith(self.exclude):
                    continue
                out[name] = value
                seen.add(id(value))
                if depth == 0:
                    for attr, inner in _modules_in(value):
                        inner_name = getattr(inner, "__name__", None)
                        if isinstance(inner_name, str) and inner_name.startswith(name + "."):
                            deeper.append((inner_name, inner))
                        else:  # os.path is posixpath: named the way tests reach it
                            deeper.append((f"{name}.{attr}", inner))
            held = deeper
        return out

    def fingerprint(
        self,
        project: Iterable[tuple[str, ModuleType, str]],
        names: frozenset[str],
        out: dict[str, int],
    ) -> None:
        """Add ``{lib.mod.attr: fingerprint}`` for every public callable and every public
        list, dict and set of each library module the project imports (as the module had
        them when first seen, so a callable replaced by something else is still named)."""
        found = self.modules(project, names)
        self.names = frozenset(found)
        for name, module in found.items():
            try:
                namespace = vars(module)
            except TypeError:
                continue
            known = self._names.get(name)
            if known is None:
                known = self._names[name] = [
                    key
                    for key, value in list(namespace.items())
                    if isinstance(key, str) and key.isidentifier() and not key.startswith("_")
                    and (_callable(value) or isinstance(value, CONTAINERS))
                ]  # fmt: skip
            for key in known:
                value = namespace.get(key, _GONE)
                out[f"{name}.{key}"] = hash(("gone",)) if value is _GONE else what_it_is(value)


_GONE = object()


def _modules_in(module: ModuleType) -> list[tuple[str, ModuleType]]:
    """The modules ``module`` holds, with the names it holds them by."""
    try:
        return [(k, v) for k, v in list(vars(module).items()) if isinstance(v, ModuleType)]
    except TypeError:
        return []


def _defining_modules(module: ModuleType) -> list[ModuleType]:
    """The modules that define the classes and functions ``module`` holds as globals."""
    try:
        values = list(vars(module).values())
    except TypeError:
        return []
    out: dict[int, ModuleType] = {}
    for value in values:
        if not isinstance(value, _NAMED):
            continue
        name = getattr(value, "__module__", None)
        defining = sys.modules.get(name) if isinstance(name, str) else None
        if defining is not None and defining is not module:
            out.setdefault(id(defining), defining)
    return list(out.values())


def _callable(value: Any) -> bool:
    try:
        return callable(value) and not isinstance(value, ModuleType)
    except Exception:
        return False
