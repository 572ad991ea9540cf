"""Bounded descriptions of values for the debug probe (the parent diffs these).

PolDet's XML serialisation of a root's value, as JSON: a structure of bounded size and
depth; :func:`literal` gives the Python literal of a plain value (the restore patches
need it). Loaded inside the test process: imports nothing heavy.
"""

from __future__ import annotations

import ast
import types
import zlib
from collections import deque
from typing import Any, Optional

from orderdep.analysis.state.defaults import mutable_defaults
from orderdep.analysis.state.fingerprint import is_code_like

# Never compared: the engine reseeds ``random`` in every child; ``sys.modules`` as a whole
# differs with whatever the runner imported (its entries are roots of their own instead).
IGNORED_ROOTS = frozenset({"random", "sys.modules"})
MAX_LITERAL = 4000
MAX_NODES = 300
MAX_DEPTH = 6
MAX_REPR = 160


# -- bounded descriptions of values (the parent diffs these) -------------------------------
def describe(value: Any) -> Any:
    """A JSON description of ``value``: ``[tag, type name, payload]`` nodes, bounded."""
    return _describe(value, 0, [MAX_NODES], frozenset())


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # user code may raise any
        text = f"<{type(value).__name__}>"
    if len(text) > MAX_REPR:
        text = f"{text[: MAX_REPR - 30]}...<{len(text)} chars, crc {zlib.crc32(text.encode())}>"
    return text


def _describe(value: Any, depth: int, budget: list[int], seen: frozenset[int]) -> Any:
    try:
        return _node(value, depth, budget, seen)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a proxy that needs a context (Flask's ``g``), a property
        return ["atom", type(value).__qualname__, f"<not readable: {type(exc).__name__}>"]


def _node(value: Any, depth: int, budget: list[int], seen: frozenset[int]) -> Any:
    t = type(value)
    tname = t.__qualname__
    if value is None or t in (bool, int, float, complex, str, bytes):
        return ["atom", tname, _short(value)]
    if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
        qual = getattr(value, "__qualname__", None) or getattr(value, "__name__", "?")
        ref = f"{getattr(value, '__module__', '') or ''}.{qual}"
        defaults = mutable_defaults(value)
        if defaults is not None:  # what a call can change in place, shown
            ref += f" with defaults {_short(defaults[0])}"
            ref += f" and keyword defaults {_short(defaults[1])}" if defaults[1] else ""
        return ["ref", tname, ref]
    if is_code_like(value):
        # what the fingerprint takes by identity (loggers, whose configuration is the
        # ``logging:`` roots and whose level caches fill as code logs; methods; caches)
        # is described by name: its insides are no test's state
        return ["ref", tname, str(getattr(value, "name", "") or "")]
    if id(value) in seen:
        return ["cycle", tname, ""]
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return ["cut", tname, _short(value)]
    budget[0] -= 1
    seen = seen | {id(value)}
    if isinstance(value, dict):
        items = sorted(((_short(k), v) for k, v in list(value.items())), key=lambda kv: kv[0])
        return ["dict", tname, [[k, _describe(v, depth + 1, budget, seen)] for k, v in items]]
    if isinstance(value, (list, tuple, deque)):
        return ["seq", tname, [_describe(v, depth + 1, budget, seen) for v in list(value)]]
    if isinstance(value, (set, frozenset)):
        return ["set", tname, sorted(_short(v) for v in list(value))]
    content = _buffer_text(value)
    if content is not None:  # a numpy array: its elements live in its buffer
        return ["buf", tname, f"{_short(value)} ({content})"]
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and not t.__module__.startswith(("_pytest", "pytest", "pluggy")):
        attrs = sorted(state.items())
        return ["obj", tname, [[k, _describe(v, depth + 1, budget, seen)] for k, v in attrs]]
    return ["atom", tname, _short(value)]


def _buffer_text(value: Any) -> Optional[str]:
    """The shape and a checksum of an object's buffer (the buffer protocol), or None."""
    try:
        with memoryview(value) as view:
            return f"shape {tuple(view.shape or ())}, crc {zlib.crc32(view.tobytes())}"
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # no buffer, or one that cannot be read (objects)
        return None


_LITERAL_TYPES = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set)


def literal(value: Any) -> Optional[str]:
    """``repr(value)`` when it is a plain literal that evaluates back to an equal value."""
    if not _plain(value, 0):
        return None
    try:
        text = repr(value)
        if len(text) > MAX_LITERAL:
            return None
        back = ast.literal_eval(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # user code may raise any
        return None
    return text if back == value and type(back) is type(value) else None


def _plain(value: Any, depth: int) -> bool:
    if depth > 8 or type(value) not in _LITERAL_TYPES:
        return False
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return all(_plain(v, depth + 1) for v in value)
    return True
