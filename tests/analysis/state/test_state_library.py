"""Library functions the project imports are roots for the repair debugger: a test that
replaces one for good shows as a write."""

from __future__ import annotations

import os
import posixpath
import sys
import time
import types
from unittest.mock import MagicMock

import pytest

from orderdep.analysis.state.library import LibraryFunctions, what_it_is


def _project(**globals_: object) -> list[tuple[str, types.ModuleType, str]]:
    module = types.ModuleType("app")
    vars(module).update(globals_)
    return [("app", module, "/src/app.py")]


def test_the_modules_a_project_holds_and_those_they_hold() -> None:
    lib = LibraryFunctions(("orderdep",))
    found = lib.modules(_project(time=time, os=os, sys=sys, pytest=pytest), frozenset({"app"}))
    assert {"time", "os", "os.path"} <= set(found)  # posixpath, as tests reach it
    assert posixpath.__name__ not in found
    assert "sys" not in found and "pytest" not in found


def test_a_replaced_function_changes_its_fingerprint_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lib = LibraryFunctions(())
    project = _project(time=time)
    before: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), before)
    assert "time.sleep" in before and "time.monotonic" in before
    monkeypatch.setattr(time, "sleep", MagicMock())
    after: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), after)
    assert {k for k in before if before[k] != after.get(k)} == {"time.sleep"}


def test_what_it_is_is_the_same_for_the_same_function_and_differs_for_a_mock() -> None:
    assert what_it_is(time.sleep) == what_it_is(time.sleep)
    assert what_it_is(posixpath.join) != what_it_is(posixpath.split)
    assert what_it_is(MagicMock()) != what_it_is(time.sleep)


def test_an_entry_left_in_the_registry_of_a_class_s_module_is_a_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``from services import Service``: the module defining Service is watched too, and
    its module-level registry shows a new entry by its size."""
    lib_module = types.ModuleType("services")
    exec(  # a library module made here, as an installed one would be
        "SERVICES = []\n\nclass Service:\n    def __init__(self):\n        SERVICES.append(self)\n",
        vars(lib_module),
    )
    monkeypatch.setitem(sys.modules, "services", lib_module)
    lib = LibraryFunctions(())
    project = _project(Service=lib_module.Service)
    before: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), before)
    assert {"services.SERVICES", "services.Service"} <= set(before)
    lib_module.Service()
    after: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), after)
    assert {k for k in before if before[k] != after.get(k)} == {"services.SERVICES"}
    assert what_it_is([1]) != what_it_is([]) and what_it_is({}) == what_it_is({})


def test_the_store_behind_os_environ_is_no_library_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """``shutil`` holds ``posix``, whose ``environ`` dict is what ``os.environ`` writes
    into: a variable a test sets shows as ``$NAME``, never as ``shutil.posix.environ``."""
    import shutil

    lib = LibraryFunctions(())
    project = _project(shutil=shutil, os=os)
    assert not {n for n in lib.modules(project, frozenset({"app"})) if "posix" in n.split(".")}
    before: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), before)
    monkeypatch.setenv("ORDERDEP_LIBRARY_ROOT_CHECK", "1")
    after: dict[str, int] = {}
    lib.fingerprint(project, frozenset({"app"}), after)
    assert {k for k in before if before[k] != after.get(k)} == set()
