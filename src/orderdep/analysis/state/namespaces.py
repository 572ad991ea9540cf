"""Which names of the project's modules are shared-state roots.

:class:`ProjectModules` tells the project's own modules from the rest of ``sys.modules``
(under the rootdir, outside site-packages and virtual environments); :func:`classify`
says how one namespace entry counts (a global, an lru cache, a class whose attributes are
walked, or code that is skipped), and :func:`python_roots` lists a module's roots.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any, Optional

from orderdep.analysis.state.defaults import mutable_defaults
from orderdep.analysis.state.files import normalise
from orderdep.analysis.state.fingerprint import identity, is_code_like
from orderdep.engine.installed import installed_packages, package_paths

CLASS_DEPTH = 3  # nested classes walked for class attributes


class ProjectModules:
    """Which entries of ``sys.modules`` are the project's own (cached per module object)."""

    def __init__(self, rootdir: str, exclude: tuple[str, ...]) -> None:
        self.rootdir = normalise(rootdir)
        self.exclude = exclude
        # the project's packages where a non-editable install put them (site-packages)
        self.installed = installed_packages(rootdir)
        self.installed_paths = package_paths(self.installed)
        self._known: dict[str, tuple[int, Optional[str]]] = {}  # name -> (id, file or None)
        self._venv_dirs: dict[str, bool] = {}
        self._last_key: tuple[int, Optional[str]] = (-1, None)
        self._last: list[tuple[str, ModuleType, str]] = []

    def _project_file(self, name: str, module: ModuleType) -> Optional[str]:
        if name == "__main__" or name.startswith(self.exclude):
            return None
        try:
            path = getattr(module, "__file__", None)
        except Exception:  # a lazy module whose __getattr__ raises more than AttributeError
            return None
        if not isinstance(path, str):
            return None
        path = normalise(path)
        if self.is_project_path(path) or name.partition(".")[0] in self.installed:
            return path
        return None

    def is_project_path(self, path: str) -> bool:
        """Whether a source file (absolute path) is the project's own code: under the
        rootdir, or in the project's non-editable install."""
        if self.installed_paths and path.startswith(self.installed_paths):
            return True
        root = self.rootdir
        if not (path.startswith(root) and path[len(root) : len(root) + 1] == os.sep):
            return False
        rel = path[len(root) + 1 :].split(os.sep)
        if any(p in ("site-packages", "dist-packages") for p in rel):
            return False
        directory = root
        for part in rel[:-1]:  # a virtual environment inside the project is not the project
            directory = os.path.join(directory, part)
            venv = self._venv_dirs.get(directory)
            if venv is None:
                venv = self._venv_dirs[directory] = os.path.isfile(
                    os.path.join(directory, "pyvenv.cfg")
                )
            if venv:
                return False
        return True

    def current(self) -> list[tuple[str, ModuleType, str]]:
        """``(name, module, file)`` of every project module now imported, sorted by name."""
        # imports and removals change the size or the newest entry; comparing every
        # module's identity would cost more than the rest of a snapshot
        modules = sys.modules
        key = (len(modules), next(reversed(modules.keys()), None) if modules else None)
        if key == self._last_key:
            return self._last
        out = []
        known = self._known
        for name, module in list(sys.modules.items()):
            if not isinstance(module, ModuleType):
                continue
            hit = known.get(name)
            if hit is None or hit[0] != identity(module):
                hit = known[name] = (identity(module), self._project_file(name, module))
            if hit[1] is not None:
                out.append((name, module, hit[1]))
        out.sort(key=lambda x: x[0])
        self._last_key, self._last = key, out
        return out


def is_cache(value: object) -> bool:
    """An ``functools.lru_cache``/``functools.cache`` wrapper (checked on the type only:
    attribute access on a value may run arbitrary code, e.g. a context-local proxy)."""
    return type(value) is _LRU_WRAPPER


def _is_dunder(key: str) -> bool:
    return key.startswith("__") and key.endswith("__")


# Dunders Python, dataclasses, typing and abc put into class namespaces. Other dunder
# names in a class are the class's own data (a ``__initialised__`` flag set by the first
# construction), so they are roots like any class attribute.
_CLASS_SPECIALS = frozenset({
    "__module__", "__doc__", "__qualname__", "__dict__", "__weakref__", "__slots__",
    "__annotations__", "__annotate__", "__firstlineno__", "__static_attributes__",
    "__orig_bases__", "__parameters__", "__type_params__", "__abstractmethods__",
    "__match_args__", "__dataclass_fields__", "__dataclass_params__", "__hash__",
    "__classcell__", "__protocol_attrs__", "__non_callable_proto_members__",
    "__callable_proto_members_only__", "__final__", "__required_keys__",
    "__optional_keys__", "__total__", "__test__",
})  # fmt: skip


_FLAG_TYPES = (bool, int, float, str, type(None))


def _skipped_name(key: str, value: object, owner: Optional[type]) -> bool:
    """Dunders are skipped, but a class's own flag or counter (a scalar) is a root; the
    metadata frameworks keep in class dunders (schemas, validators) is not walked. A
    dunder method with a mutable default (``def __init__(self, params=[])``) counts as
    any method does (:func:`classify`): its defaults are state."""
    if not _is_dunder(key):
        return False
    if owner is not None and mutable_defaults(value) is not None:
        return False
    return owner is None or key in _CLASS_SPECIALS or not isinstance(value, _FLAG_TYPES)


_LRU_WRAPPER: Any = getattr(functools, "_lru_cache_wrapper", None)

# How a namespace entry counts (see :func:`classify`).
SKIP, PLAIN, CACHE, CLASS = 0, 1, 2, 3


def classify(
    key: object,
    value: object,
    module: str,
    owner: Optional[type] = None,
    *,
    functions: bool = False,
) -> int:
    """How entry ``key`` of module ``module`` (or of its class ``owner``) counts.

    Module globals are roots (``PLAIN``); lru caches also give a ``cache:`` root
    (``CACHE``); classes defined in the module have their attributes walked too
    (``CLASS``), and so have its functions that carry attributes of their own
    (:func:`carries_attributes`). In classes, methods, properties and other descriptors
    are code (``SKIP``), but a function assigned onto the class from elsewhere is state
    (``Cls.method = fake``); with ``functions``, a class's own functions and descriptors
    (properties) are roots too, so that a method or property replaced later is known to
    have been there before.
    """
    if not isinstance(key, str) or _skipped_name(key, value, owner) or not key.isidentifier():
        return SKIP  # also pytest's assertion-rewriting helpers (``@py_builtins``)
    if is_cache(value):
        return CACHE
    if isinstance(value, type):
        qualname = key if owner is None else f"{owner.__qualname__}.{key}"
        if getattr(value, "__module__", None) == module:
            if value.__qualname__ == qualname:
                return CLASS  # defined here under its own name, not an alias
            if owner is None and _made_here(value, module):
                return CLASS  # made here by a factory (``g = namedtuple('Globals', '')``)
        return PLAIN if owner is None else SKIP
    if owner is None and carries_attributes(value, module):
        return CLASS  # its attributes are walked as a class's are
    if owner is not None and (is_code_like(value) or hasattr(type(value), "__get__")):
        if isinstance(value, types.FunctionType) and (
            functions or _put_on_class(value, module, owner)
        ):
            return PLAIN
        if functions and not isinstance(value, types.ModuleType):
            return PLAIN  # a property, or what replaced it (``type(obj).x = PropertyMock()``)
        return SKIP
    return PLAIN


#: Attributes decorators put on functions: their marks, not state a test changes.
_DECORATION = frozenset({"pytestmark"})


def carries_attributes(value: object, module: str) -> bool:
    """Whether ``value`` is a plain function of ``module`` with attributes of its own
    (``post_hook.eventually = []`` after ``def post_hook``): data a call may change, kept
    where no global names it, so each attribute is a root (``mod.post_hook.eventually``)."""
    if type(value) is not types.FunctionType or value.__module__ != module:
        return False
    return any(not k.startswith("_") and k not in _DECORATION for k in vars(value))


def _made_here(cls: type, module: str) -> bool:
    """Whether ``cls``, made in ``module``, is bound there under no name of its own (a
    factory's class: ``namedtuple``, ``type(...)``), so that only this name reaches its
    attributes; an alias of a class the module also binds by its name is not."""
    home = sys.modules.get(module)
    if home is None:
        return False
    return getattr(home, "__dict__", {}).get(cls.__qualname__) is not cls


def _put_on_class(value: types.FunctionType, module: str, owner: type) -> bool:
    """Whether function ``value`` was defined elsewhere and assigned onto ``owner``
    (``Cls.method = fake``, a test's stand-in or a setter's addition): state, not the
    class's code. Its own methods, and aliases among them, stay code."""
    home = getattr(value, "__module__", None)
    outer = value.__qualname__.rpartition(".")[0]
    return home != module or outer != owner.__qualname__


def python_roots(module_name: str, module: ModuleType) -> Iterator[tuple[str, Any]]:
    """``(root name, value)`` for the globals and class attributes of one module."""
    yield from _namespace_roots(module_name, module_name, vars(module), None, 0)


def _namespace_roots(
    prefix: str, module: str, namespace: Mapping[str, Any], owner: Optional[type], depth: int
) -> Iterator[tuple[str, Any]]:
    for key, value in list(namespace.items()):
        kind = classify(key, value, module, owner)
        if kind == SKIP:
            continue
        name = f"{prefix}.{key}"
        if kind == CACHE:
            yield "cache:" + name, value
        elif kind == CLASS and depth < CLASS_DEPTH:
            yield from _namespace_roots(name, module, vars(value), value, depth + 1)
        if owner is None or kind == PLAIN:
            yield name, value
