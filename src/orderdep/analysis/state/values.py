"""Reading, describing and putting back the value of one root by name.

:func:`get` captures a root (the live object and a deep copy of its content),
:func:`restore` puts a captured value back — mutable containers and instances in place, so
aliases elsewhere see the restored content — and :func:`describe` says in one line what a
root holds now. Root names are those of :mod:`orderdep.analysis.state.roots`.
"""

from __future__ import annotations

import collections
import copy
import decimal
import logging
import os
import random
import reprlib
import shutil
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Optional

from orderdep.analysis.state import fixtures, settings
from orderdep.analysis.state.defaults import mutable_defaults, put_defaults
from orderdep.analysis.state.files import FileWatcher
from orderdep.analysis.state.process_roots import DECIMAL_FIELDS
from orderdep.analysis.state.roots import RootsConfig
from orderdep.errors import UsageError

FILE_COPY_LIMIT = 16 * 1024 * 1024

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = _repr.maxdict = _repr.maxset = _repr.maxtuple = 6


@dataclass
class RootValue:
    """A root's value captured by :func:`get`: ``present`` is False for an unset root."""

    name: str
    present: bool
    value: Any = None  # the live object at capture time (identity)
    content: Any = None  # a deep copy of its content (None if it could not be copied)


def _locate(name: str) -> tuple[Any, str]:
    """The object holding a python root (module or class) and the attribute name."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:i]))
        if module is not None:
            owner: Any = module
            for part in parts[i:-1]:
                owner = vars(owner)[part]
            return owner, parts[-1]
    raise UsageError(
        f"root {name!r} names no imported module; expected 'pkg.mod.NAME' or "
        "'pkg.mod.Class.attr' for a module that is imported in this process"
    )


def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # user code may raise any
        try:
            return copy.copy(value)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # user code may raise any
            return None


def _files(config: Optional[RootsConfig]) -> FileWatcher:
    if config is None:
        raise UsageError("file roots need a RootsConfig (to know the rootdir); pass config=")
    return FileWatcher(
        config.rootdir, temp_dirs=config.temp_dirs, home=config.home, cwd=config.cwd_files
    )


def _fixture(name: str) -> tuple[bool, Any]:
    roots = fixtures.current()
    if roots is None:
        raise UsageError(
            f"root {name!r} is a fixture value, readable only inside the pytest session "
            "that holds it: capture it from a probe running in that session"
        )
    try:
        return roots.value(name)
    except KeyError:
        raise UsageError(
            f"root {name!r} names no fixture definition of this session; expected "
            "'fixture:<scope>:<baseid>::<name>' of a project fixture wider than a function"
        ) from None


def get(name: str, config: Optional[RootsConfig] = None) -> RootValue:
    """Capture the current value of root ``name``."""
    if name.startswith(fixtures.PREFIX):
        present, value = _fixture(name)
        return RootValue(name, present, value, _copy(value) if present else None)
    if name.startswith("env:"):
        value = os.environ.get(name[4:])
        return RootValue(name, value is not None, value, value)
    if name == "cwd":
        cwd = os.getcwd()
        return RootValue(name, True, cwd, cwd)
    if name == "sys.path":
        return RootValue(name, True, sys.path, list(sys.path))
    if name == "sys.argv":
        return RootValue(name, True, sys.argv, list(sys.argv))
    if name == "decimal":
        ctx = decimal.getcontext()
        return RootValue(name, True, ctx, ctx.copy())
    setting = settings.setting_of(name)
    if setting is not None:
        present, value = settings.current(setting)
        return RootValue(name, present, value, copy.deepcopy(value))
    if name == "sys.modules":
        return RootValue(name, True, sys.modules, dict(sys.modules))
    if name == "warnings":
        return RootValue(name, True, warnings.filters, list(warnings.filters))
    if name == "random":
        rstate = random.getstate()
        return RootValue(name, True, rstate, rstate)
    if name.startswith("logging:"):
        logger = _logger(name)
        state: dict[str, Any] = {
            "level": logger.level,
            "disabled": logger.disabled,
            "propagate": logger.propagate,
            "handlers": list(logger.handlers),
            "filters": list(logger.filters),
        }
        if logger is logging.root:
            state["disable"] = logging.Logger.manager.disable
        return RootValue(name, True, logger, state)
    if name.startswith("file:"):
        path = _files(config).path_of(name)
        if path is None or not os.path.lexists(path):
            return RootValue(name, False)
        if os.path.isdir(path):
            return RootValue(name, True, path, "dir")
        if os.path.getsize(path) > FILE_COPY_LIMIT:
            return RootValue(name, True, path, None)
        with open(path, "rb") as fh:
            return RootValue(name, True, path, fh.read())
    if name.startswith("cache:"):
        owner, attr = _locate(name[6:])
        func = _raw(owner, attr)
        return RootValue(name, True, func, func.cache_info())
    try:
        owner, attr = _locate(name)
    except KeyError:  # an object on its path is not there yet (a set-up makes it)
        return RootValue(name, False)
    if attr not in vars(owner):
        return RootValue(name, False)
    value = _raw(owner, attr)
    defaults = mutable_defaults(value)  # a function: what can change is its defaults
    return RootValue(name, True, value, _copy(value if defaults is None else defaults))


def _raw(owner: Any, attr: str) -> Any:
    return vars(owner)[attr]


def _logger(name: str) -> logging.Logger:
    logger_name = name[len("logging:") :]
    return logging.root if logger_name == "root" else logging.getLogger(logger_name)


def _fill(target: Any, content: Any) -> bool:
    """Put ``content`` into ``target`` in place; False if the type does not allow it."""
    fresh = _copy(content)
    return fresh is not None and put_in_place(target, fresh)


def put_in_place(target: Any, fresh: Any) -> bool:
    """Make ``target`` hold what ``fresh`` (a copy, of the same type) holds, keeping
    ``target``'s identity; False if the type does not allow it."""
    if fresh is target:  # a copy that is the object itself (a logger copies as itself)
        return True
    if type(fresh) is not type(target):
        return False
    if isinstance(target, (dict, set)):
        target.clear()
        target.update(fresh)
        return True
    if isinstance(target, (list, collections.deque, bytearray)):
        target.clear()
        target.extend(fresh)
        return True
    copied = _copy_buffer(target, fresh)  # a numpy array's elements
    state = getattr(target, "__dict__", None)
    if isinstance(state, dict) and isinstance(getattr(fresh, "__dict__", None), dict):
        state.clear()
        state.update(fresh.__dict__)
        return True
    return copied


def _copy_buffer(target: Any, fresh: Any) -> bool:
    """Copy ``fresh``'s buffer into ``target``'s (both C-contiguous, of one format and
    shape, ``target`` writable); False where that does not hold."""
    try:
        with memoryview(target) as dst, memoryview(fresh) as src:
            if dst.readonly or (dst.format, dst.shape) != (src.format, src.shape):
                return False
            if not (dst.c_contiguous and src.c_contiguous):
                return False
            with dst.cast("B") as into, src.cast("B") as data:
                into[:] = data
            return True
    except Exception:
        return False


def restore(name: str, captured: RootValue, config: Optional[RootsConfig] = None) -> None:
    """Put root ``name`` back to the value :func:`get` captured."""
    if name.startswith("env:"):
        key = name[4:]
        if captured.present:
            os.environ[key] = captured.content
        else:
            os.environ.pop(key, None)
    elif name == "cwd":
        os.chdir(captured.content)
    elif name == "sys.path":
        sys.path[:] = captured.content
    elif name == "sys.argv":
        sys.argv = list(captured.content)  # tests rebind it; put the list back
    elif (setting := settings.setting_of(name)) is not None:
        if captured.present:
            settings.put_back(setting, captured.content)
    elif name == "decimal":
        ctx, saved = decimal.getcontext(), captured.content
        for field_name in DECIMAL_FIELDS:
            setattr(ctx, field_name, getattr(saved, field_name))
        ctx.traps.update(saved.traps)
    elif name == "sys.modules":
        for key in [k for k in sys.modules if k not in captured.content]:
            del sys.modules[key]
        sys.modules.update(captured.content)
    elif name == "warnings":
        warnings.filters[:] = captured.content  # type: ignore[index]
        warnings._filters_mutated()  # type: ignore[attr-defined]
    elif name == "random":
        random.setstate(captured.content)
    elif name.startswith("logging:"):
        _restore_logger(_logger(name), captured.content)
    elif name.startswith("file:"):
        _restore_file(name, captured, config)
    elif name.startswith("cache:"):
        owner, attr = _locate(name[6:])
        func = _raw(owner, attr)
        if func.cache_info() != captured.content:
            func.cache_clear()  # entries cannot be put back; empty is the safe state
    elif name.startswith(fixtures.PREFIX):
        present, value = _fixture(name)
        if captured.present and present and value is captured.value:
            _fill(value, captured.content)  # the cached value itself, in place
        elif captured.present != present or present:
            raise UsageError(
                f"root {name!r} was set up again (or torn down) since it was captured; "
                "a fixture value can only be restored in place while pytest caches it"
            )
    else:
        owner, attr = _locate(name)
        if not captured.present:
            if attr in vars(owner):
                delattr(owner, attr)
            return
        if mutable_defaults(captured.value) is not None:
            put_defaults(captured.value, _copy(captured.content))
        else:
            _fill(captured.value, captured.content)
        setattr(owner, attr, captured.value)


def _restore_logger(logger: logging.Logger, state: dict[str, Any]) -> None:
    logger.setLevel(state["level"])
    logger.disabled = state["disabled"]
    logger.propagate = state["propagate"]
    logger.handlers[:] = state["handlers"]
    logger.filters[:] = state["filters"]
    if "disable" in state:
        logging.disable(state["disable"])


def _restore_file(name: str, captured: RootValue, config: Optional[RootsConfig]) -> None:
    path = _files(config).path_of(name)
    if path is None:
        raise UsageError(f"root {name!r} is not under a watched directory of {config!r}")
    if not captured.present:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        return
    if captured.content == "dir":
        os.makedirs(path, exist_ok=True)
        return
    if captured.content is None:
        raise UsageError(
            f"root {name!r} was larger than {FILE_COPY_LIMIT} bytes when captured, so it "
            "cannot be restored; restore it from version control instead"
        )
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(captured.content)


def describe(name: str, config: Optional[RootsConfig] = None) -> str:
    """One line saying what root ``name`` holds now (for reports); never copies the value."""
    try:
        return _describe(name, config)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # user code may raise any
        return f"<cannot read: {type(exc).__name__}: {exc}>"


def _describe(name: str, config: Optional[RootsConfig]) -> str:
    if name.startswith("file:"):
        path = _files(config).path_of(name)
        if path is None or not os.path.lexists(path):
            return "<absent>"
        if os.path.isdir(path):
            return "directory"
        return f"file, {os.path.getsize(path)} bytes"
    if name == "sys.modules":
        return f"{len(sys.modules)} modules"
    if name == "random":
        return "random module state"
    if name == "warnings":
        return f"{len(warnings.filters)} warning filters"
    if name.startswith("logging:"):
        logger = _logger(name)
        return (
            f"level={logging.getLevelName(logger.level)} handlers={len(logger.handlers)} "
            f"disabled={logger.disabled} propagate={logger.propagate}"
        )
    if name.startswith("cache:"):
        owner, attr = _locate(name[6:])
        return f"cache: {_raw(owner, attr).cache_info()}"
    if name.startswith("env:"):
        value = os.environ.get(name[4:])
        return "<unset>" if value is None else repr(value)
    if name.startswith(fixtures.PREFIX):
        present, value = _fixture(name)
        return _value_line(value) if present else "<not set up>"
    if name == "cwd":
        return _repr.repr(os.getcwd())
    if name == "decimal":
        ctx = decimal.getcontext()
        return ", ".join(f"{f}={getattr(ctx, f)!r}" for f in DECIMAL_FIELDS)
    setting = settings.setting_of(name)
    if setting is not None:
        present, value = settings.current(setting)
        return _repr.repr(value) if present else "<not imported>"
    if name in ("sys.path", "sys.argv"):
        return _repr.repr(sys.path if name == "sys.path" else sys.argv)
    owner, attr = _locate(name)
    if attr not in vars(owner):
        return "<unset>"
    return _value_line(_raw(owner, attr))


def _value_line(value: Any) -> str:
    kind = type(value).__name__
    if hasattr(value, "__len__") and not isinstance(value, (str, bytes)):
        try:
            return f"{kind} of {len(value)}: {_repr.repr(value)}"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # user code may raise any
            pass
    return f"{kind}: {_repr.repr(value)}"
