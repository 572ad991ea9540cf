"""Fingerprints of Python values: one int that changes when the value's content changes.

PRADET (paper 001 §III-A) walks the heap from static roots to find what a test touched.
We do the same per root: :class:`Fingerprinter` walks a value (containers, instance
``__dict__`` and ``__slots__``) and folds what it sees into an int, so two snapshots of a
root differ exactly when something reachable from it changed. Objects reachable from one
root through aliasing are part of that root's fingerprint (and of every other root that
reaches them).

Rules that keep it stable and cheap:

* dicts and sets are folded order-insensitively (a sum of item hashes), sequences in order;
* modules, functions, classes, code and other objects without visible state count by
  identity only (a rebinding shows, their insides are not walked);
* a node budget and a depth cap bound the walk; what lies beyond counts by identity;
* fingerprints are stable within one interpreter (``str`` hashing is salted per process).
"""

from __future__ import annotations

import array
import collections
import datetime
import decimal
import enum
import fractions
import functools
import logging
import pathlib
import random
import re
import types
import uuid
from typing import Any, Optional

from orderdep.analysis.state.defaults import mutable_defaults

MASK = (1 << 64) - 1

# Immutable values hashed by content without walking.
ATOM_TYPES: frozenset[type] = frozenset(
    {
        type(None),
        bool,
        int,
        float,
        complex,
        str,
        bytes,
        range,
        type(Ellipsis),
        type(NotImplemented),
        datetime.date,
        datetime.datetime,
        datetime.time,
        datetime.timedelta,
        datetime.timezone,
        decimal.Decimal,
        fractions.Fraction,
        uuid.UUID,
        pathlib.PurePosixPath,
        pathlib.PureWindowsPath,
        pathlib.PosixPath,
        pathlib.WindowsPath,
        re.Pattern,
    }
)

# Counted by identity: their behaviour is code, not data (a rebinding still shows).
IDENTITY_TYPES: tuple[type, ...] = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    type,
    property,
    staticmethod,
    classmethod,
    # their configuration is the ``logging:`` roots; their insides reach every logger
    logging.Logger,
    logging.Handler,
    logging.Manager,
    logging.Filter,
    functools._lru_cache_wrapper,  # its entries are the ``cache:`` root
)

# Containers whose content is hashed in one C call when it holds only atoms.
_FLAT_TYPES = frozenset(
    {tuple, list, dict, set, frozenset, collections.deque, collections.OrderedDict}
)

# Identity of an object without ``identity()``: ``id`` raises an audit event, and once the read
# tracer's audit hook is installed every such event costs a Python call.
# ``object.__hash__`` is a bijection of the address, so it is unique among live objects.
identity = object.__hash__

# Objects of these modules are the test runner's or ours: never walked.
INTERNAL_MODULE_PREFIXES = ("_pytest", "pytest", "pluggy", "orderdep.")


def is_code_like(value: object) -> bool:
    """Modules, functions, classes and descriptors: values we never walk into."""
    return isinstance(value, IDENTITY_TYPES)


class Fingerprinter:
    """Walks values into fingerprints; optionally records which root owns which object.

    ``owners`` (if given) maps ``identity(obj)`` to the names of the roots whose walk reached
    that mutable object; the read tracer uses it to see that an argument passed to test
    code is (part of) a root. ``partners`` (if given) links roots that share an object.
    ``mutable`` tells, after :meth:`fingerprint`, whether the
    walk saw anything whose content can change in place (if not, a cached fingerprint stays
    valid while the root is bound to the same object).
    """

    def __init__(
        self,
        *,
        max_nodes: int = 2000,
        max_depth: int = 8,
        owners: Optional[dict[int, set[str]]] = None,
        partners: Optional[dict[str, set[str]]] = None,
    ) -> None:
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.owners = owners
        self.partners = partners
        self.mutable = False
        self.truncated = False
        self._budget = 0
        self._memo: dict[int, int] = {}
        self._root = ""

    def fingerprint(self, value: object, root: str = "") -> int:
        """The fingerprint of ``value``; ``root`` names the owner recorded in ``owners``."""
        self._budget = self.max_nodes
        self._memo = {}
        self._root = root
        self.mutable = False
        self.truncated = False
        try:
            return self._fp(value, 0)
        except Exception:  # a value that fails when walked (a lazy proxy, a broken __dict__)
            self.mutable = True  # try again next time
            return hash(("unwalkable", type(value), identity(value)))

    def fingerprint_items(self, items: list[tuple[Any, Any]], root: str = "") -> int:
        """Order-insensitive fingerprint of ``(key, value)`` pairs that no container of the
        root holds as such (an lru_cache's entries); keys and values are walked as usual."""
        self._budget = self.max_nodes
        self._memo = {}
        self._root = root
        self.mutable = True  # entries come and go in place
        self.truncated = False
        fp = self._fp
        try:
            folded = _unordered(hash((fp(k, 0), fp(v, 0))) for k, v in items)
        except Exception:
            return hash(("unwalkable items", len(items)))
        return hash(("items", len(items), folded))

    # -- the walk ----------------------------------------------------------------------
    def _own(self, obj: object) -> None:
        if self.owners is not None:
            root = self._root
            names = self.owners.get(identity(obj))
            if names is None:
                self.owners[identity(obj)] = {root}
            elif root not in names:
                if self.partners is not None:
                    mine = self.partners.setdefault(root, set())
                    for other in names:
                        mine.add(other)
                        self.partners.setdefault(other, set()).add(root)
                names.add(root)

    def _fp(self, obj: Any, depth: int) -> int:
        t = type(obj)
        if t in ATOM_TYPES:
            if t is float and obj != obj:  # NaN hashes by identity since 3.10
                return hash("nan")
            return hash((t, obj))
        key = identity(obj)
        seen = self._memo.get(key)
        if seen is not None:  # aliasing within this root, or a cycle
            return seen
        try:
            # isinstance may look up ``obj.__class__``: a proxy can raise from there too
            if isinstance(obj, IDENTITY_TYPES):
                defaults = mutable_defaults(obj)
                if defaults is None:
                    return hash((t, identity(obj)))
                self.mutable = True  # a default a call changes in place is state
                self._memo[key] = hash(("cycle", key))
                out = hash((t, key, self._fp(defaults, depth + 1)))
                self._memo[key] = out
                return out
            if depth >= self.max_depth or self._budget <= 0:
                self.truncated = True
                return hash(("cut", t, key))
            self._budget -= 1
            self._memo[key] = hash(("cycle", key))
            out = self._walk(obj, t, depth + 1)
        except Exception:
            # A value that fails when looked at (a context-local proxy, a broken __dict__,
            # a generator whose state cannot be read) counts by identity, and only it:
            # the rest of the root is still walked. Walk it again next time.
            self.mutable = True
            out = hash(("unwalkable", t, key))
        self._memo[key] = out
        return out

    def _walk(self, obj: Any, t: type, depth: int) -> int:
        fp = self._fp
        flat = t in _FLAT_TYPES and _flat(obj)
        if t is tuple or (isinstance(obj, tuple) and not hasattr(obj, "__dict__")):
            if flat:  # only atoms inside: hash in C
                return hash((t, obj))
            return hash((t, tuple([fp(x, depth) for x in obj])))
        if isinstance(obj, frozenset):
            if flat:
                return hash((t, obj))
            return hash((t, len(obj), _unordered(fp(x, depth) for x in obj)))
        if isinstance(obj, enum.Enum):
            return hash((t, obj.name))
        if isinstance(obj, (int, float, complex, str, bytes)):  # subclasses of atoms
            state = getattr(obj, "__dict__", None)
            extra = self._fp(state, depth) if isinstance(state, dict) and state else 0
            return hash((t, _atom_value(obj), extra))
        module = getattr(t, "__module__", "") or ""
        if module.startswith(INTERNAL_MODULE_PREFIXES):
            return hash((t, identity(obj)))
        # Everything below can change in place.
        self.mutable = True
        self._own(obj)
        if isinstance(obj, dict):
            extra = 0
            if isinstance(obj, collections.defaultdict):
                extra = hash(("factory", identity(obj.default_factory)))
            if flat and _flat(obj.values()):
                return hash((t, len(obj), hash(frozenset(obj.items())), extra))
            items = _unordered(hash((fp(k, depth), fp(v, depth))) for k, v in list(obj.items()))
            return hash((t, len(obj), items, extra))
        if isinstance(obj, (list, collections.deque)):
            if flat:
                return hash((t, tuple(obj)))
            return hash((t, tuple([fp(x, depth) for x in list(obj)])))
        if isinstance(obj, (set, frozenset)):
            if flat:
                return hash((t, frozenset(obj)))
            return hash((t, len(obj), _unordered(fp(x, depth) for x in list(obj))))
        if isinstance(obj, (bytearray, memoryview)):
            return hash((t, bytes(obj)))
        if isinstance(obj, array.array):
            return hash((t, obj.typecode, obj.tobytes()))
        if isinstance(obj, random.Random):
            if isinstance(obj, random.SystemRandom):  # no state: getstate() raises
                return hash((t, identity(obj)))
            return hash((t, obj.getstate()))
        return self._instance(obj, t, depth)

    def _instance(self, obj: Any, t: type, depth: int) -> int:
        parts: list[int] = []
        try:
            state = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            state = None
        if isinstance(state, dict):
            parts.append(self._fp(state, depth))
        for name in _slot_names(t):
            try:
                parts.append(hash((name, self._fp(object.__getattribute__(obj, name), depth))))
            except AttributeError:
                parts.append(hash((name, "unset")))
        data = _buffer_hash(obj)  # a numpy array's elements live in its buffer
        if data is not None:
            parts.append(data)
        if not parts:  # a C object with no visible state: identity only
            return hash((t, identity(obj)))
        return hash((t, tuple(parts)))


# Buffers up to this size are hashed whole; a larger one by its shape and evenly spaced
# slices of this size (a write there may be missed, a snapshot stays cheap).
BUFFER_WHOLE = 4 * 1024 * 1024
BUFFER_SLICES = 64


_NO_BUFFER: set[type] = set()


def _buffer_hash(obj: Any) -> Optional[int]:
    """The content of an object exposing the buffer protocol (a numpy array, also a
    masked or record array), or None: an object without one, or one whose buffer cannot
    be read (an array of Python objects). A type without the protocol is remembered, so
    that walking its instances costs no failed ``memoryview`` each."""
    t = type(obj)
    if t in _NO_BUFFER:
        return None
    try:
        view = memoryview(obj)
    except TypeError:  # the type has no buffer protocol
        _NO_BUFFER.add(t)
        return None
    except Exception:  # this object's buffer cannot be read
        return None
    try:
        with view:
            meta = (view.format, view.shape, view.strides)
            if view.nbytes <= BUFFER_WHOLE:
                return hash((meta, view.tobytes()))
            data = view.tobytes() if not view.c_contiguous else None
            with memoryview(data) if data is not None else view.cast("B") as flat:
                step, size = len(flat) // BUFFER_SLICES, BUFFER_WHOLE // BUFFER_SLICES
                parts = [flat[i * step : i * step + size].tobytes() for i in range(BUFFER_SLICES)]
            return hash((meta, tuple(parts)))
    except Exception:
        return None


def _flat(values: Any) -> bool:
    """Only atoms (and no NaN, whose hash is its identity): hashable in one C call."""
    types_seen = set(map(type, values))
    if not types_seen <= ATOM_TYPES:
        return False
    return float not in types_seen or not any(x != x for x in values)


def _unordered(hashes: Any) -> int:
    total = 0
    for h in hashes:
        total = (total + (h & MASK)) & MASK
    return total


def _atom_value(obj: Any) -> Any:
    base: Any
    for base in (bool, int, float, complex, str, bytes):
        if isinstance(obj, base):
            return base(obj)
    return identity(obj)


_SLOTS: dict[type, tuple[str, ...]] = {}


def _slot_names(t: type) -> tuple[str, ...]:
    names = _SLOTS.get(t)
    if names is None:
        found: list[str] = []
        for klass in t.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            if isinstance(slots, str):
                slots = (slots,)
            for s in slots:
                if s not in ("__dict__", "__weakref__") and s not in found:
                    # private slot names are mangled on the class
                    found.append(f"_{klass.__name__.lstrip('_')}{s}" if s.startswith("__") else s)
        names = _SLOTS[t] = tuple(found)
    return names


def fingerprint(value: object, *, max_nodes: int = 2000, max_depth: int = 8) -> int:
    """The fingerprint of one value (see :class:`Fingerprinter`)."""
    return Fingerprinter(max_nodes=max_nodes, max_depth=max_depth).fingerprint(value)
