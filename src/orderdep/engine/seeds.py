"""Global random generators in a forked child, as a fresh ``python -m pytest`` has them.

A fresh process seeds ``random`` (and numpy's legacy global generator, ``np.random``)
from the OS when they are imported. Many suites then seed them during collection:
``random.seed(0)`` in a conftest, ``np.random.seed(4135157)`` at the top of a test
module. Every fresh run then starts its first test from the same state, and a test that
draws from it passes or fails by how many draws the tests before it made: an
order-dependent test, deterministic per order.

A forked child starts from the fork server's state instead, and Python reseeds
``random`` in every child (``os.register_at_fork``). So the server watches the calls
that seed the two generators while it collects (:class:`SeedWatch`): a generator whose
last such call fixed its state (``seed(x)`` with ``x`` not None, ``setstate``,
``set_state``) gets its state after collection back in every child; any other is
reseeded from the OS, as a fresh process's would be (:func:`enter_child`).

What is watched is the module attribute (``random.seed``, ``numpy.random.seed``, and
names imported from them while collecting); a call through ``random._inst.seed`` or
``numpy.random.mtrand.seed`` is not seen. Generators the suite makes itself
(``random.Random(0)``, ``np.random.default_rng(0)``) are objects a child inherits as a
fresh process builds them, and need nothing.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import random
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Optional

_NUMPY = "numpy.random"
# (attribute, the keyword naming the seed; None: the call always fixes the state)
_RANDOM_CALLS = (("seed", "a"), ("setstate", None))
_NUMPY_CALLS = (("seed", "seed"), ("set_state", None))

if TYPE_CHECKING:  # a runtime alias of builtin generics needs Python 3.9
    Note = Callable[[tuple[Any, ...], dict[str, Any]], None]


class SeedWatch:
    """Which global generators the suite seeded while it was collected (see module doc)."""

    def __init__(self) -> None:
        self.seeded = {"random": False, "numpy": False}
        self._undo: list[tuple[ModuleType, str, Any]] = []
        self._finder: Optional[_AfterImport] = None

    def install(self) -> None:
        """Start watching (before any conftest or test module is imported)."""
        self._watch(random, "random", _RANDOM_CALLS)
        numpy_random = sys.modules.get(_NUMPY)
        if numpy_random is not None:
            self._watch(numpy_random, "numpy", _NUMPY_CALLS)
        else:
            self._finder = _AfterImport(
                _NUMPY, lambda module: self._watch(module, "numpy", _NUMPY_CALLS)
            )
            sys.meta_path.insert(0, self._finder)

    def finish(self) -> dict[str, Any]:
        """Stop watching; the states a child must start from (seeded generators only)."""
        for module, name, original in reversed(self._undo):
            setattr(module, name, original)
        self._undo.clear()
        if self._finder is not None and self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        states: dict[str, Any] = {}
        if self.seeded["random"]:
            states["random"] = random.getstate()
        numpy_random = sys.modules.get(_NUMPY)
        if self.seeded["numpy"] and numpy_random is not None:
            try:
                states["numpy"] = numpy_random.get_state()
            except Exception:
                pass
        return states

    def _watch(
        self, module: ModuleType, generator: str, calls: Sequence[tuple[str, Optional[str]]]
    ) -> None:
        for name, keyword in calls:
            original = getattr(module, name, None)
            if original is None:
                continue
            setattr(module, name, _noted(original, self._note(generator, keyword)))
            self._undo.append((module, name, original))

    def _note(self, generator: str, keyword: Optional[str]) -> Note:
        def note(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            value = args[0] if args else kwargs.get(keyword) if keyword else True
            self.seeded[generator] = keyword is None or value is not None

        return note


def _noted(original: Callable[..., Any], note: Note) -> Callable[..., Any]:
    @functools.wraps(original)
    def watched(*args: Any, **kwargs: Any) -> Any:
        note(args, kwargs)
        return original(*args, **kwargs)

    return watched


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``then(module)`` once ``fullname`` has been imported (its code has run)."""

    def __init__(self, fullname: str, then: Callable[[ModuleType], None]) -> None:
        self.fullname = fullname
        self.then = then

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]], target: Optional[ModuleType] = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != self.fullname:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if spec is None or not isinstance(loader, importlib.abc.Loader):
            return None
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            self.then(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def enter_child(states: dict[str, Any]) -> None:
    """In a forked child: seeded generators start from their state after collection, the
    others from the OS."""
    if "random" in states:
        random.setstate(states["random"])
    else:
        random.seed()
    numpy_random = sys.modules.get(_NUMPY)
    if numpy_random is None:
        return
    try:
        if "numpy" in states:
            numpy_random.set_state(states["numpy"])
        else:
            numpy_random.seed()
    except Exception:
        pass


__all__ = ["SeedWatch", "enter_child"]
