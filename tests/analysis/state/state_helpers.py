"""Helpers for the state tests: a temporary importable project."""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from orderdep.analysis.state.roots import RootsConfig

_counter = itertools.count()


def module_from(name: str, source: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A module ``name`` made by running ``source``, in ``sys.modules`` for the test."""
    module = ModuleType(name)
    exec(source, module.__dict__)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def unique_name(seed: str) -> str:
    return f"odpkg{next(_counter)}_{abs(hash(seed)) % 10_000}"


STATE_MODULE = """
import functools

_ENTRIES = []
SETTINGS = {"debug": False, "names": ["a", "b"]}
LIMIT = 3


class Meter:
    hits = 0
    LABELS = ("x", "y")

    def bump(self):
        Meter.hits += 1

    class Inner:
        depth = 1


@functools.lru_cache(maxsize=None)
def square(x):
    return x * x


def add_entry(x):
    _ENTRIES.append(x)


def read_limit():
    return LIMIT


def count_entries(entries):
    return len(entries)
"""


class Project:
    """A temporary project with one importable package ``<name>`` holding ``state.py``."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.tmp = root.parent / "tmp"
        self.home = root.parent / "home"

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        importlib.invalidate_caches()  # a directory listed in the same mtime tick is cached
        return path

    def module(self, rel_module: str) -> ModuleType:
        return importlib.import_module(f"{self.name}.{rel_module}")

    def config(self, **kwargs: object) -> RootsConfig:
        kwargs.setdefault("temp_dirs", [str(self.tmp)])
        kwargs.setdefault("home", str(self.home))
        return RootsConfig(rootdir=str(self.root), **kwargs)  # type: ignore[arg-type]
