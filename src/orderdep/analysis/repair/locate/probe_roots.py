"""Roots the repair debugger's probe adds to those of :mod:`orderdep.analysis.state`.

ODRepair's Debugger (003 §3.1) diffs the state reachable before the OD test. Two places
hold such state outside module globals:

``sys.modules['NAME']``
    One entry of ``sys.modules`` that is not library code: a module object a test planted
    (``sys.modules["x_speedups"] = types.ModuleType(...)``), a project module imported
    late. The state module fingerprints ``sys.modules`` as one set of names, and the
    engine's own imports make that set differ between any two orders; one root per entry
    lets the debugger restore (remove) exactly the entries a polluter added.
``fixture:<scope>:<baseid>::<name>``
    The cached value of a session-, package-, module- or class-scoped fixture
    (:mod:`orderdep.analysis.state.fixtures` names and fingerprints them). This module
    keeps a deep copy of each value right after its fixture function produced it, so a
    changed value can be described against its fresh content and put back to it in
    place (the value a later user of the fixture expects).
"""

from __future__ import annotations

import ast
import copy
import os
import site
import sys
import sysconfig
import types
from typing import Any, Callable, Optional

from orderdep.analysis.state import fixtures as fixture_state
from orderdep.analysis.state.fingerprint import INTERNAL_MODULE_PREFIXES
from orderdep.analysis.state.fixtures import FixtureRoots
from orderdep.analysis.state.values import put_in_place

SYSMODULE_PREFIX = "sys.modules["
FIXTURE_PREFIX = fixture_state.PREFIX
PLUGIN_NAME = "orderdep-repair-fixture-values"
_OWN_PREFIXES = ("orderdep", *INTERNAL_MODULE_PREFIXES)


# -- sys.modules entries -------------------------------------------------------------------
def sysmodule_root(name: str) -> str:
    """The root naming entry ``name`` of ``sys.modules``."""
    return f"{SYSMODULE_PREFIX}{name!r}]"


def sysmodule_name(root: str) -> Optional[str]:
    """The module name of a ``sys.modules['NAME']`` root (None for other roots)."""
    if not (root.startswith(SYSMODULE_PREFIX) and root.endswith("]")):
        return None
    try:
        name = ast.literal_eval(root[len(SYSMODULE_PREFIX) : -1])
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def library_dirs() -> tuple[str, ...]:
    """Directories holding the interpreter's and installed packages' code."""
    dirs: set[str] = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:  # some virtualenv versions ship a site module without it
        pass
    return tuple(sorted({os.path.join(os.path.realpath(d), "") for d in dirs if d}))


def watched_modules(library: tuple[str, ...]) -> dict[str, Any]:
    """Entries of ``sys.modules`` that are not library code: ``{name: module}``.

    Built-in and frozen modules, modules whose file lies under ``library`` and pytest's,
    pluggy's and orderdep's own are left out: their presence depends on what the runner
    imported, not on what a test left behind.
    """
    out: dict[str, Any] = {}
    for name, module in list(sys.modules.items()):
        if name in sys.builtin_module_names or name.startswith(_OWN_PREFIXES):
            continue
        if isinstance(module, types.ModuleType):
            spec = getattr(module, "__spec__", None)
            if getattr(spec, "origin", None) in ("built-in", "frozen"):
                continue
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and os.path.realpath(file).startswith(library):
                continue
        out[name] = module
    return out


def describe_module(module: Any, rootdir: str) -> Any:
    """A description of one ``sys.modules`` entry (the parent compares these)."""
    if not isinstance(module, types.ModuleType):
        return ["atom", type(module).__qualname__, f"<{type(module).__qualname__}>"]
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return ["ref", "module", f"{module.__name__} (no file)"]
    rel = os.path.relpath(os.path.realpath(file), os.path.realpath(rootdir))
    where = file if rel.startswith("..") else rel.replace(os.sep, "/")
    return ["ref", "module", f"{module.__name__} from {where}"]


# -- fixture values -----------------------------------------------------------------------
def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return None


def fill_in_place(target: Any, content: Any) -> bool:
    """Give ``target`` the content of ``content`` (same type) in place; False if it can't."""
    fresh = _copy(content)
    return fresh is not None and put_in_place(target, fresh)


def _cached(fixturedef: Any) -> Optional[tuple[Any, ...]]:
    cached = getattr(fixturedef, "cached_result", None)
    if cached is None or len(cached) < 3 or cached[2] is not None:
        return None
    return tuple(cached)


class FixtureValues:
    """The fixture roots of the session running an order, with fresh copies of values."""

    def __init__(self, roots: FixtureRoots) -> None:
        self.roots = roots
        self.fresh: dict[str, Any] = {}  # root -> deep copy of the value right after setup

    @classmethod
    def of_session(cls, session: Any, is_project_path: Callable[[str], bool]) -> FixtureValues:
        return cls(FixtureRoots.of_session(session, is_project_path))

    def set_up(self, fixturedef: Any) -> None:
        """A fixture function just produced its value: remember it as the fresh one."""
        name = self.roots.learn(fixturedef)
        cached = _cached(fixturedef)
        if name is None or cached is None:
            return
        self.roots.set_up(fixturedef)
        self.fresh[name] = _copy(cached[0])

    def register(self, pluginmanager: Any) -> bool:
        """Record fresh values from now on (a pytest plugin); True if it is active."""
        import pytest  # only ever called inside a pytest process

        values = self

        class FreshValues:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
                yield
                try:
                    values.set_up(fixturedef)
                except Exception:
                    pass  # a value that cannot be copied is only never "fresh"

        try:
            if pluginmanager.get_plugin(PLUGIN_NAME) is None:
                pluginmanager.register(FreshValues(), PLUGIN_NAME)
        except Exception:
            return False
        fixture_state.CURRENT[0] = self.roots  # state.values reads fixture roots through it
        return True

    def value(self, name: str) -> tuple[bool, Any]:
        """``(set up, value)`` of root ``name`` now."""
        return self.roots.value(name)

    def restore_fresh(self, name: str) -> None:
        """Put the cached value of root ``name`` back to its fresh content.

        In place (every holder of the object sees it); a value that cannot be refilled is
        dropped from pytest's cache, so the fixture function runs again for the next user.
        """
        fixturedef = self.roots.defs[name]
        cached = _cached(fixturedef)
        if cached is None:
            return  # not set up: the next user gets a fresh value anyway
        fresh = self.fresh.get(name)
        if fresh is not None and fill_in_place(cached[0], fresh):
            return
        fixturedef.cached_result = None
