"""The pytest APIs the test processes use that differ between pytest versions.

A project may pin a pytest older than the one orderdep is installed with when orderdep
runs apart from it (``--python``, a pipx install). Before pytest 7, paths are
``py.path.local`` objects (``item.fspath``, ``config.rootdir``; since then also
``pathlib.Path`` ones, ``item.path``, ``config.rootpath``), and ``ExceptionInfo`` is not
exported by ``pytest`` itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def item_path(item: Any) -> Path:
    """The file a collected item comes from."""
    path = getattr(item, "path", None)
    return Path(str(path if path is not None else item.fspath))


def root_path(config: Any) -> Path:
    """The run's rootdir."""
    path = getattr(config, "rootpath", None)
    return Path(str(path if path is not None else config.rootdir))


def current_exception() -> Any:
    """``ExceptionInfo`` of the exception being handled."""
    import pytest

    info: Any = getattr(pytest, "ExceptionInfo", None)
    if info is None:  # pytest < 7
        from _pytest._code import ExceptionInfo

        info = ExceptionInfo
    return info.from_current()


__all__ = ["current_exception", "item_path", "root_path"]
