"""The process-wide roots: environment, working directory, import path and modules,
warning filters, the ``random`` state, the logging configuration and the settings
libraries keep behind a getter and a setter (:mod:`.settings`).

:class:`ProcessRoots` fingerprints them all for one snapshot; it remembers what stays the
same between snapshots (decoded environment names, the set of imported modules) so that a
snapshot between two tests costs little.
"""

from __future__ import annotations

import decimal
import logging
import os
import random
import sys
import warnings
from collections.abc import Iterator
from typing import Any, Optional

from orderdep.analysis.state import settings
from orderdep.analysis.state.fingerprint import identity


def logging_roots() -> Iterator[tuple[str, Any]]:
    """``(root name, logger)`` for the root logger and every logger made so far."""
    yield "logging:root", logging.root
    manager = logging.Logger.manager
    for name, logger in list(manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            yield "logging:" + name, logger


def logger_settings(logger: logging.Logger, handlers: list[Any]) -> dict[str, Any]:
    """What a repair can put back of ``logger`` (its handlers by class name)."""
    out: dict[str, Any] = {
        "level": logger.level,
        "disabled": logger.disabled,
        "propagate": logger.propagate,
        "handlers": [type(h).__name__ for h in handlers],
    }
    if logger is logging.root:
        out["disable"] = logging.root.manager.disable
    return out


def logger_fingerprint(logger: logging.Logger) -> int:
    """Level, handlers, filters and propagation of ``logger`` (and ``logging.disable``)."""
    try:
        handlers = tuple((type(h), identity(h), h.level) for h in list(logger.handlers))
        filters = tuple(identity(f) for f in list(logger.filters))
        extra = logging.Logger.manager.disable if logger is logging.root else 0
        return hash((logger.level, logger.disabled, logger.propagate, handlers, filters, extra))
    except Exception:  # a logger subclass with properties that raise: by identity
        return hash(("logger", identity(logger)))


def _filter_key(f: Any) -> Any:
    try:
        hash(f)
        return f
    except Exception:
        try:
            return repr(f)
        except Exception:
            return identity(f)


class ProcessRoots:
    """Fingerprints of the process-wide roots, environment variables ``env_exclude`` left out."""

    def __init__(self, env_exclude: frozenset[str]) -> None:
        self.env_exclude = env_exclude
        self._modules_key: tuple[int, Optional[str]] = (-1, None)
        self._modules_fp = 0
        self._env_names: dict[Any, str] = {}

    def fingerprint(self, out: dict[str, int]) -> None:
        """Add the fingerprint of every process-wide root to ``out``."""
        exclude = self.env_exclude
        data = getattr(os.environ, "_data", None)
        if isinstance(data, dict):  # the encoded store: no decoding of every value
            names = self._env_names
            for raw, value in list(data.items()):
                name = names.get(raw)
                if name is None:
                    key = os.environ.decodekey(raw)
                    name = names[raw] = "" if key in exclude else "env:" + key
                if name:
                    out[name] = hash(value)
        else:
            for key, value in list(os.environ.items()):
                if key not in exclude:
                    out["env:" + key] = hash(value)
        try:
            out["cwd"] = hash(os.getcwd())
        except OSError:
            out["cwd"] = hash(None)
        out["sys.path"] = hash(tuple(str(p) for p in sys.path))
        argv = sys.argv
        out["sys.argv"] = hash(tuple(map(str, argv))) if isinstance(argv, list) else hash(id(argv))
        modules = sys.modules
        size = (len(modules), next(reversed(modules.keys()), None) if modules else None)
        if size != self._modules_key:  # see ProjectModules.current
            self._modules_key, self._modules_fp = size, hash(frozenset(modules))
        out["sys.modules"] = self._modules_fp
        out["warnings"] = hash(tuple(map(_filter_key, list(warnings.filters))))
        out["random"] = hash(random.getstate())
        out["decimal"] = hash(decimal_settings())
        settings.fingerprints(out)
        for name, logger in logging_roots():
            out[name] = logger_fingerprint(logger)


#: The settings of a decimal context a test can change (its flags change with every
#: inexact operation and are left out).
DECIMAL_FIELDS = ("prec", "rounding", "Emin", "Emax", "capitals", "clamp")


def decimal_settings() -> tuple[object, ...]:
    """The current thread's decimal context: its settings and the signals it traps."""
    ctx = decimal.getcontext()
    traps = tuple(sorted(s.__name__ for s, on in ctx.traps.items() if on))
    return (*(getattr(ctx, f) for f in DECIMAL_FIELDS), traps)
