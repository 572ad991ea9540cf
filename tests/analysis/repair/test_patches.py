"""Patches: libcst insertion keeps formatting, diffs apply, statements per root kind."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.analysis.repair.candidates.guard_statements import guard_statements
from orderdep.analysis.repair.candidates.root_statements import restore_statements
from orderdep.analysis.repair.locate.module_names import (
    ModuleNames,
    attribute_reference,
    module_name_for,
    module_reference,
)
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.repair.write.patches import (
    Insertion,
    apply_insertion,
    apply_insertions,
    changed_lines,
    insertion,
    statement_key,
    unified_diff,
)
from orderdep.errors import UsageError

SOURCE = textwrap.dedent(
    '''
    """Module doc."""
    from app import registry  # the registry
    import app.meter


    class TestThing:
        def test_method(self, value=1):
            """Doc."""
            # a comment that must stay
            assert registry.count() == 0


    def test_one_line(): assert True


    @pytest.mark.parametrize("x", [1, 2])
    def test_param(x):
        assert x
    '''
).lstrip()


def test_insertion_after_the_docstring_keeps_comments_and_layout() -> None:
    ins = Insertion("t.py::TestThing::test_method", ("registry.reset()",), ("monkeypatch",))
    new = apply_insertion(SOURCE, ins)
    assert new.splitlines()[6:11] == [
        "    def test_method(self, value=1, *, monkeypatch):",
        '        """Doc."""',
        "        registry.reset()",
        "        # a comment that must stay",
        "        assert registry.count() == 0",
    ]
    assert new.replace("        registry.reset()\n", "").replace(", *, monkeypatch", "") == SOURCE
    assert apply_insertion(new, ins) == new  # idempotent


def test_one_line_functions_and_parametrized_ids() -> None:
    new = apply_insertion(SOURCE, Insertion("t.py::test_one_line", ("x = 1",), ("request",)))
    assert "def test_one_line(request):\n    x = 1\n    assert True\n" in new
    new = apply_insertion(SOURCE, Insertion("t.py::test_param[2]", ("y = 2",)))
    assert "def test_param(x):\n    y = 2\n    assert x\n" in new


def test_a_fixture_joins_a_signature_whose_parenthesis_has_a_line_of_its_own() -> None:
    source = "def test_wrapped(\n        self, app, error_code\n):\n    assert app\n"
    new = apply_insertion(source, Insertion("t.py::test_wrapped", ("x = 1",), ("request",)))
    assert new.startswith("def test_wrapped(\n        self, app, error_code, request\n):\n")


def test_a_step_goes_after_the_statement_it_names_whatever_its_quotes_and_comments() -> None:
    source = (
        "def test_load(tmp_path):\n"
        "    folder = tmp_path / 'data'  # where it goes\n"
        "    folder.mkdir()\n"
        "    assert load(folder)\n"
    )
    after = statement_key('folder = tmp_path / "data"')
    ins = Insertion("t.py::test_load", ("store.load()",), after=after)
    new = apply_insertion(source, ins)
    assert new.splitlines()[1:4] == [
        "    folder = tmp_path / 'data'  # where it goes",
        "    store.load()",
        "    folder.mkdir()",
    ]
    assert apply_insertion(new, ins) == new  # idempotent
    gone = Insertion("t.py::test_load", ("store.load()",), after=statement_key("x = 1"))
    with pytest.raises(UsageError, match="no longer has the statement a step was to follow"):
        apply_insertion(source, gone)


def test_missing_functions_and_bad_sources_are_usage_errors() -> None:
    with pytest.raises(UsageError, match=r"cannot find the function of 't\.py::nope'"):
        apply_insertion(SOURCE, Insertion("t.py::nope", ("x = 1",)))
    with pytest.raises(UsageError, match=r"cannot parse 't\.py'"):
        apply_insertion("def (:\n", Insertion("t.py::f", ("x = 1",)))


def test_insertion_orders_imports_first_and_dedupes_them() -> None:
    ins = insertion(
        "t.py::f", ["a()", "import copy", "b()", "a()", "import copy"], ["request", "x"]
    )
    assert ins.statements == ("import copy", "a()", "b()", "a()")  # the last a() may matter
    assert ins.fixtures == ("request", "x")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_applies_with_git_even_without_a_final_newline(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    text = "def test_a():\n    assert True"  # no newline at the end
    (root / "tests" / "test_a.py").write_text(text)
    changes = apply_insertions(root, [Insertion("tests/test_a.py::test_a", ("x = 1",))])
    diff = unified_diff(changes)
    assert diff.startswith("diff --git a/tests/test_a.py b/tests/test_a.py\n")
    assert "\\ No newline at end of file\n" in diff
    assert changed_lines(changes) == 1
    (tmp_path / "fix.patch").write_text(diff)
    subprocess.run(["git", "-C", str(root), "apply", str(tmp_path / "fix.patch")], check=True)
    assert (root / "tests" / "test_a.py").read_text() == changes["tests/test_a.py"][1]


def test_module_names_and_references() -> None:
    names = ModuleNames.parse(SOURCE, "test_mod")
    assert names.imports["app.registry"] == "registry"
    assert names.imports["app.meter"] == "app.meter"
    assert module_reference("app.registry", names) == ("registry", [])
    assert module_reference("app.other", names) == ("other", ["from app import other"])
    assert module_reference("json", names) == ("json", ["import json"])
    # 'registry' is taken, so another module called registry gets another name
    assert module_reference("lib.registry", names) == (
        "registry_module",
        ["from lib import registry as registry_module"],
    )
    meter = ModuleNames.parse("from app.meter import Meter\n")
    assert attribute_reference("app.meter", ["Meter", "hits"], meter) == ("Meter.hits", [])
    rel = ModuleNames.parse("from . import helpers\n", "pkg.tests.test_x")
    assert rel.imports["pkg.tests.helpers"] == "helpers"


def test_a_name_an_earlier_patch_bound_to_the_same_module_in_another_test_is_reused() -> None:
    """Two polluters of one class guarded one after the other name the module alike, so
    the two blocks are one block (sharing can hoist it), not two spellings of it."""
    patched = (
        "def test_closed():\n"
        "    from mahjong import yaku_types as yaku_types_module\n"
        "    saved = yaku_types_module.TOTAL\n"
        "    yaku_types = 1\n\n\n"
        "def test_opened():\n"
        "    yaku_types = 2\n"
    )
    names = ModuleNames.parse(patched)
    assert module_reference("mahjong.yaku_types", names) == (
        "yaku_types_module",
        ["from mahjong import yaku_types as yaku_types_module"],
    )
    # another module of that name, or a name bound otherwise too, is another name
    assert module_reference("other.yaku_types", names)[0] == "_yaku_types"
    bound = ModuleNames.parse(patched + "\n\nyaku_types_module = None\n")
    assert module_reference("mahjong.yaku_types", bound)[0] == "_yaku_types"


def test_star_imports_name_public_attributes_directly() -> None:
    # ``from kit.nodes import *`` binds Node; ``from kit import nodes`` could even give
    # another object when kit's __init__ binds a function called ``nodes``
    names = ModuleNames.parse("from kit.nodes import *\nimport unittest\n", "tests.test_n")
    assert names.star_imports == {"kit.nodes"}
    assert attribute_reference("kit.nodes", ["Node", "_grammar"], names) == (
        "Node._grammar",
        [],
    )
    # private names are not bound by a star import: the module is imported instead
    assert attribute_reference("kit.nodes", ["_CACHE"], names) == (
        "nodes._CACHE",
        ["from kit import nodes"],
    )


def test_module_name_for_follows_packages(tmp_path: Path) -> None:
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "__init__.py").write_text("")
    assert module_name_for(tmp_path, "tests/unit/test_a.py") == "unit.test_a"
    assert module_name_for(tmp_path, "tests/test_b.py") == "test_b"


def root(
    name: str,
    kind: str,
    passing: ValueView,
    failing: Optional[ValueView] = None,
    **meta: Any,
) -> RootInfo:
    return RootInfo(name, kind, failing or ValueView(True, None, None, ""), passing, **meta)


NAMES = ModuleNames.parse("from app import registry\n")


def test_restore_statements_by_kind() -> None:
    entries = root(
        "app.registry._E", "global", ValueView(True, None, "{}", "dict"),
        module="app.registry", attrs=("_E",),
    )  # fmt: skip
    assert restore_statements(entries, NAMES, "test_x") == [
        (["registry._E.clear()"], []),
        (["monkeypatch.setattr(registry, '_E', {})"], ["monkeypatch"]),
    ]
    own = root(
        "test_x._SEEN", "global", ValueView(True, None, "[1]", "list"),
        module="test_x", attrs=("_SEEN",),
    )  # fmt: skip
    assert restore_statements(own, NAMES, "test_x") == [
        (["_SEEN[:] = [1]"], []),
        (["monkeypatch.setitem(globals(), '_SEEN', [1])"], ["monkeypatch"]),
    ]
    env = root("env:A", "env", ValueView(False), var="A")
    assert restore_statements(env, NAMES, None) == [
        (["monkeypatch.delenv('A', raising=False)"], ["monkeypatch"])
    ]
    cwd = root("cwd", "cwd", ValueView(True, None, "'.'", "str"))
    assert restore_statements(cwd, NAMES, None) == [
        (["monkeypatch.chdir(request.config.rootpath)"], ["monkeypatch", "request"])
    ]
    leaked = root("file:out/", "file", ValueView(False), path="out")
    assert restore_statements(leaked, NAMES, None) == [
        (
            ["import shutil", "shutil.rmtree(request.config.rootpath.joinpath('out'), ignore_errors=True)"],
            ["request"],
        )
    ]  # fmt: skip
    # a directory the test writes into, which other tests make: made again
    made = root(
        "file:data/temp/", "file", ValueView(True, ["dir", "dir", ""], None, "dir"),
        failing=ValueView(False), path="data/temp",
    )  # fmt: skip
    assert restore_statements(made, NAMES, None) == [
        (["request.config.rootpath.joinpath('data/temp').mkdir(parents=True, exist_ok=True)"],
         ["request"])
    ]  # fmt: skip
    obj = root(
        "app.registry.CONN", "global",
        ValueView(True, ["obj", "Conn", [["closed", ["atom", "bool", "False"]]]], None, "Conn"),
        ValueView(True, ["obj", "Conn", [["closed", ["atom", "bool", "True"]]]], None, "Conn"),
        module="app.registry", attrs=("CONN",),
    )  # fmt: skip
    assert restore_statements(obj, NAMES, None) == [
        (["monkeypatch.setattr(registry.CONN, 'closed', False)"], ["monkeypatch"])
    ]
    opaque = root(
        "app.registry.LOCK", "global", ValueView(True, ["atom", "lock", "<lock>"], None, "lock"),
        module="app.registry", attrs=("LOCK",),
    )  # fmt: skip
    assert restore_statements(opaque, NAMES, None) == []


def test_guard_statements_by_kind() -> None:
    entries = root(
        "app.registry._E", "global", ValueView(True, None, "{}", "dict"),
        module="app.registry", attrs=("_E",),
    )  # fmt: skip
    guards = guard_statements(entries, NAMES, None)
    assert guards[0] == (
        ["import copy", "monkeypatch.setattr(registry, '_E', copy.deepcopy(registry._E))"],
        ["monkeypatch"],
    )
    assert guards[1][0][-1] == (
        "request.addfinalizer(lambda saved=saved: (registry._E.clear(), registry._E.update(saved)))"
    )
    env = root("env:A", "env", ValueView(False), var="A")
    assert guard_statements(env, NAMES, None) == [
        (["import os", "request.addfinalizer(lambda: os.environ.pop('A', None))"], ["request"]),
        (["monkeypatch.setenv('A', '')", "monkeypatch.delenv('A')"], ["monkeypatch"]),
    ]
    # a present variable is saved as it is when the polluter starts (never a sandbox path)
    home = root("env:HOME", "env", ValueView(True, None, "'/tmp/sandbox/home'", "str"), var="HOME")
    assert guard_statements(home, NAMES, None) == [
        (["import os", "monkeypatch.setenv('HOME', os.environ['HOME'])"], ["monkeypatch"])
    ]
    cache = root(
        "cache:app.registry.f", "cache", ValueView(True), module="app.registry", attrs=("f",)
    )
    assert guard_statements(cache, NAMES, None) == [
        (["request.addfinalizer(registry.f.cache_clear)"], ["request"])
    ]
    syspath = root("sys.path", "syspath", ValueView(True))
    assert guard_statements(syspath, NAMES, None)[0][0][-1] == (
        "monkeypatch.setattr(sys, 'path', list(sys.path))"
    )


def test_a_submodule_its_package_hides_is_named_through_importlib() -> None:
    # ``from .problem import *`` in httpkit/__init__.py binds the function ``problem``
    # over the submodule: the test's ``problem`` and ``httpkit.problem`` are the function
    names = ModuleNames.parse("from httpkit import problem, set_mode\n", "tests.test_p")
    hidden = ("httpkit.problem",)
    assert attribute_reference("httpkit.problem", ["MODE"], names) == ("problem.MODE", [])
    assert attribute_reference("httpkit.problem", ["MODE"], names, hidden) == (
        "problem_module.MODE",
        ["import importlib", "problem_module = importlib.import_module('httpkit.problem')"],
    )
    plain = ModuleNames.parse("import importlib\n")
    assert module_reference("httpkit.problem", plain, hidden) == (
        "problem_module",
        ["problem_module = importlib.import_module('httpkit.problem')"],
    )
    # a module below a hidden one is reached the same way; a star import still works
    star = ModuleNames.parse("from httpkit.problem import *\n")
    assert attribute_reference("httpkit.problem", ["MODE"], star, hidden) == ("MODE", [])
    assert module_reference("httpkit.problem.sub", NAMES, hidden)[1][-1] == (
        "sub_module = importlib.import_module('httpkit.problem.sub')"
    )


def test_a_function_or_class_is_restored_by_its_importable_name() -> None:
    names = ModuleNames.parse("from httpkit import problem\n", "tests.test_p")
    serializer = root(
        "httpkit.problem.SERIALIZE", "global",
        ValueView(True, ["ref", "function", "json.dumps"], None, "function", "json:dumps"),
        ValueView(True, ["ref", "function", "tests.test_p.<lambda>"], None, "function"),
        module="httpkit.problem", attrs=("SERIALIZE",), shadowed=("httpkit.problem",),
    )  # fmt: skip
    assert restore_statements(serializer, names, "tests.test_p") == [
        (
            [
                "import importlib",
                "problem_module = importlib.import_module('httpkit.problem')",
                "import json",
                "monkeypatch.setattr(problem_module, 'SERIALIZE', json.dumps)",
            ],
            ["monkeypatch"],
        )
    ]
    # the polluter's guard saves whatever the global holds when it starts
    assert guard_statements(serializer, names, "tests.test_p")[0][0][-1] == (
        "monkeypatch.setattr(problem_module, 'SERIALIZE', problem_module.SERIALIZE)"
    )


def test_two_guards_in_one_test_each_put_back_what_they_saved() -> None:
    # a polluter's guard and a brittle's set-up both save the fixture's value under
    # ``saved``; each finaliser must restore its own copy, so the first one saved wins
    router = root(
        "fixture:module:t.py::router", "fixture", ValueView(True, None, None, "Router"),
        fixture="router",
    )  # fmt: skip
    (stmts, fixtures), *_ = guard_statements(router, NAMES, None)
    assert fixtures == ["request", "router"]

    class Router:
        def __init__(self) -> None:
            self.routes = ["index"]

    finalizers: list[Any] = []
    request = type("Request", (), {"addfinalizer": staticmethod(finalizers.append)})
    scope: dict[str, Any] = {"router": Router(), "request": request}
    exec("\n".join(stmts), scope)  # saves ["index"]
    scope["router"].routes = ["index", "fn"]  # the brittle's set-up
    exec("\n".join(stmts), scope)  # saves ["index", "fn"]
    for finish in reversed(finalizers):
        finish()
    assert scope["router"].routes == ["index"]


def test_a_brittle_gets_an_objects_differing_attributes_whole() -> None:
    # other tests may have added other keys: a brittle needs exactly its setter's state
    before = ValueView(True, ["obj", "Parser", [["_defaults", ["dict", "dict", []]]]], None, "P")
    after = ValueView(
        True,
        [
            "obj",
            "Parser",
            [["_defaults", ["dict", "dict", [["'timeout'", ["atom", "str", "'30'"]]]]]],
        ],
        None,
        "P",
    )
    parser = root(
        "app.registry.Settings.parser", "classattr", after, before,
        module="app.registry", attrs=("Settings", "parser"),
    )  # fmt: skip
    whole = "monkeypatch.setattr(registry.Settings.parser, '_defaults', {'timeout': '30'})"
    assert restore_statements(parser, NAMES, None, whole=True)[0] == ([whole], ["monkeypatch"])
    assert ([whole], ["monkeypatch"]) not in restore_statements(parser, NAMES, None)


def test_a_statement_that_does_not_parse_is_a_usage_error_not_a_crash() -> None:
    ins = Insertion("tests/test_a.py::test_one", ("monkeypatch.setitem(obj, :, [])",))
    with pytest.raises(UsageError, match="does not parse"):
        apply_insertion("def test_one():\n    pass\n", ins)


def test_a_file_with_dos_line_ends_keeps_them(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    source = "import os\r\n\r\n\r\ndef test_one():\r\n    assert os.sep\r\n"
    (tmp_path / "tests" / "test_a.py").write_bytes(source.encode())
    ins = Insertion("tests/test_a.py::test_one", ("os.environ.pop('APP_MODE', None)",))
    ((old, new),) = apply_insertions(tmp_path, [ins]).values()
    assert old == source
    assert new.count("\r\n") == new.count("\n")  # every line still ends with \r\n
    diff = unified_diff(apply_insertions(tmp_path, [ins]))
    # only the inserted line is new: no line of the file shows as changed
    added = [
        line for line in diff.split("\n") if line.startswith("+") and not line.startswith("+++")
    ]
    assert added == ["+    os.environ.pop('APP_MODE', None)\r"]
    assert not [
        line for line in diff.split("\n") if line.startswith("-") and not line.startswith("---")
    ]
