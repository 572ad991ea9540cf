"""Candidates built from the roots the debugger names: a state-setter's writes undone when
the brittle ends; class attributes restored together."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdep.analysis.repair.candidates.cleaners import _guarded, is_check
from orderdep.analysis.repair.candidates.guard_statements import guard_statements
from orderdep.analysis.repair.candidates.sources import FunctionSource, absolute_import
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.repair.write.patches import insertion

SOURCE = "import routes\n\n\ndef test_dispatch(router):\n    assert router.dispatch('/')\n"
BRITTLE = FunctionSource(
    "tests/test_r.py::test_dispatch", "tests/test_r.py", "tests.test_r", SOURCE,
    ["assert router.dispatch('/')"], ["router"], "",
)  # fmt: skip


def root(kind: str, **meta: object) -> RootInfo:
    value = ValueView(True, ["obj", "Router", []], None, "Router")
    return RootInfo(f"{kind}:x", kind, value, value, **meta)  # type: ignore[arg-type]


def test_the_needed_fixture_value_is_saved_first_and_put_back_after() -> None:
    setter = insertion(BRITTLE.test, ["router.add('/', index)"], ["router"])
    guarded = _guarded(setter, [root("fixture", fixture="router")], BRITTLE)
    assert guarded is not None
    assert guarded.statements == (
        "import copy",
        "saved = copy.deepcopy(vars(router))",
        "request.addfinalizer(lambda saved=saved: (vars(router).clear(), vars(router).update(saved)))",
        "router.add('/', index)",
    )
    assert guarded.fixtures == ("request", "router")


def test_no_guard_without_a_known_root_or_for_one_that_cannot_be_saved() -> None:
    setter = insertion(BRITTLE.test, ["router.add('/', index)"], ["router"])
    assert _guarded(setter, [], BRITTLE) is None
    assert _guarded(setter, [root("other")], BRITTLE) is None


def test_class_attributes_of_one_class_that_differ_are_grouped() -> None:
    from orderdep.analysis.repair.candidates.candidates import sibling_groups

    def attr(cls: str, name: str) -> RootInfo:
        return root("classattr", module="pkg.sexpr", attrs=(cls, name))

    parser, tag, schema, other = (
        attr("AST", "_parser"), attr("AST", "tag"), attr("AST", "schema"), attr("Net", "n")
    )  # fmt: skip
    differing = [parser, tag, other, schema]
    assert sibling_groups([parser], differing) == [[parser, tag, schema]]
    assert sibling_groups([other], differing) == []  # alone on its class
    assert sibling_groups([root("env", var="HOME")], differing) == []


def test_a_polluter_guard_for_an_attribute_absent_before_it_leaves_it_absent() -> None:
    value = ValueView(True, ["atom", "int", "1"], "1", "int")
    absent = RootInfo(
        "pkg.sexpr.AST.tag", "classattr", value, ValueView(False),
        module="pkg.sexpr", attrs=("AST", "tag"),
    )  # fmt: skip
    names = ModuleNames.parse("from pkg.sexpr import AST\n", "tests.test_x")
    [(stmts, fixtures)] = guard_statements(absent, names, "tests.test_x")
    assert stmts == [
        "monkeypatch.setattr(AST, 'tag', None, raising=False)",
        "monkeypatch.delattr(AST, 'tag')",
    ]
    assert fixtures == ["monkeypatch"]


def test_a_set_then_delete_pair_is_explained_in_the_patch_comment() -> None:
    """A reader takes ``setattr`` then ``delattr`` of one name for a no-op: the comment
    says the name did not exist before and monkeypatch deletes it again at the end."""
    from orderdep.analysis.repair.candidates.candidates import Candidate, comment_for
    from orderdep.core.report import ODFinding

    polluter = "tests/test_x.py::test_kwargs"
    guard = insertion(
        polluter,
        [
            "monkeypatch.setattr(AST, 'tag', None, raising=False)",
            "monkeypatch.delattr(AST, 'tag')",
            "monkeypatch.setenv('APP_FILE', '')",
            "monkeypatch.delenv('APP_FILE')",
        ],
        ["monkeypatch"],
    )
    finding = ODFinding("tests/test_x.py::test_fields", polluters=[polluter])
    cand = Candidate("polluter", "makes the polluter undo", [guard])
    roots = ["pkg.sexpr.AST.tag", "env:APP_FILE"]
    assert comment_for(cand, guard, finding, "victim", roots) == (
        "Undo this test's change to pkg.sexpr.AST.tag, $APP_FILE when it ends "
        "(test_fields needs it). tag, APP_FILE did not exist before: set then deleted, so "
        "that monkeypatch deletes it again at the end."
    )
    plain = insertion(polluter, ["monkeypatch.setattr(AST, 'tag', 1)"], ["monkeypatch"])
    assert "did not exist" not in comment_for(cand, plain, finding, "victim", roots)


def test_a_polluter_guard_for_a_dict_of_modules_copies_it_shallow() -> None:
    """``copy.deepcopy`` of a dict holding modules raises TypeError (the polluter would stop
    before it pollutes, which is no repair): the dict itself is what changes, so a
    shallow copy is what the polluter works on."""
    from orderdep.analysis.repair.candidates.guard_statements import guard_statements, holds_modules
    from orderdep.analysis.repair.locate.module_names import ModuleNames

    codecs = ["dict", "dict", [["'json'", ["ref", "module", "json.json"]]]]
    plain = ["dict", "dict", [["'a'", ["atom", "int", "1"]]]]
    assert holds_modules(codecs) and not holds_modules(plain)
    assert holds_modules(["seq", "list", [["obj", "Box", [["m", ["ref", "module", "os.os"]]]]]])
    names = ModuleNames.parse("from pkg import swagger\n", "tests.test_x")

    def guards(desc: object) -> list[list[str]]:
        value = ValueView(True, desc, None, "dict")
        changed = ValueView(True, ["dict", "dict", []], None, "dict")
        root = RootInfo(
            "pkg.swagger.CODECS", "global", changed, value, module="pkg.swagger",
            attrs=("CODECS",),
        )  # fmt: skip
        return [stmts for stmts, _ in guard_statements(root, names, "tests.test_x")]

    shallow = guards(codecs)
    assert shallow[0] == ["monkeypatch.setattr(swagger, 'CODECS', swagger.CODECS.copy())"]
    assert "saved = swagger.CODECS.copy()" in shallow[1]
    assert not any("deepcopy" in st for stmts in shallow[:2] for st in stmts)
    assert guards(plain)[0][-1] == (
        "monkeypatch.setattr(swagger, 'CODECS', copy.deepcopy(swagger.CODECS))"
    )


def test_environment_variables_that_differ_are_grouped() -> None:
    from orderdep.analysis.repair.candidates.candidates import sibling_groups

    port, host = root("env", var="APP_PORT"), root("env", var="APP_HOST")
    differing = [port, host, root("classattr", module="pkg.sexpr", attrs=("AST", "tag"))]
    assert sibling_groups([port], differing) == [[port, host]]
    assert sibling_groups([port], [port]) == []  # alone


def test_a_brittles_guard_saves_the_variable_as_it_is_alone() -> None:
    # unset when the brittle runs alone, set by its state-setter: the guard deletes it
    # again at the end (reading os.environ[...] would raise when the brittle runs alone)
    setting = RootInfo(
        "env:APP_FILE", "env", ValueView(False), ValueView(True, None, "'app.ini'", "str"),
        var="APP_FILE",
    )  # fmt: skip
    setter = insertion(BRITTLE.test, ["os.environ['APP_FILE'] = 'app.ini'"], [])
    guarded = _guarded(setter, [setting], BRITTLE)
    assert guarded is not None
    assert guarded.statements == (
        "import os",
        "request.addfinalizer(lambda: os.environ.pop('APP_FILE', None))",
        "os.environ['APP_FILE'] = 'app.ini'",
    )


@pytest.mark.parametrize(
    ("statement", "check"),
    [
        ("assert handler.level == 0", True),
        ("assert(x)", True),
        ("self.assertEqual(a, b)", True),
        ("self.assertTrue(\n    ok\n)", True),
        ("self.fail('no')", True),
        ("with self.assertRaises(KeyError):\n    registry.pop('x')", False),
        ("assertions.clear()", False),
        ("logger.addHandler(NullHandler())", False),
    ],
)
def test_a_donors_own_checks_are_not_transplanted(statement: str, check: bool) -> None:
    assert is_check(statement) is check


@pytest.mark.parametrize("rel", ["data/", "data/out.json"])
def test_a_file_guard_removes_only_what_was_not_there_when_the_test_began(
    rel: str, tmp_path: Path
) -> None:
    """A directory a session fixture made before the test stays (a brittle's set-up
    "undone when it ends" once removed it, and the test writing into it then failed)."""
    root = RootInfo(f"file:{rel}", "file", ValueView(True), ValueView(False), path=rel)
    (stmts, fixtures), *_ = guard_statements(root, ModuleNames(), None)
    assert fixtures == ["request"]
    finalizers: list[object] = []

    class Config:
        rootpath = tmp_path

    class Request:
        config = Config()

        def addfinalizer(self, fn: object) -> None:
            finalizers.append(fn)

    code = "\n".join(stmts)
    exec(code, {"request": Request()})  # absent: removed when the test ends
    assert len(finalizers) == 1
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "out.json").write_text("{}")
    exec(code, {"request": Request()})  # there already: left alone
    assert len(finalizers) == 1


@pytest.mark.parametrize(
    ("line", "module", "expected"),
    [
        ("from . import command", "supertunnel.command_test", "from supertunnel import command"),
        ("from ..x import y as z", "a.b.c_test", "from a.x import y as z"),
        ("from .m import k", "a.t", "from a.m import k"),
        ("from . import command", "command_test", "from . import command"),  # no package
        ("import os", "a.b", "import os"),
    ],
)
def test_a_donors_relative_import_is_made_absolute(line: str, module: str, expected: str) -> None:
    # a cleaner's statements moved into a test of another package keep their meaning
    assert absolute_import(line, module) == expected


def test_files_inside_a_directory_the_set_up_makes_need_no_guard_of_their_own() -> None:
    """A brittle's set-up writes a cache directory of many files: removing the directory
    when the test ends removes them, so they get no line each."""
    from orderdep.analysis.repair.candidates.cleaners import outermost_files

    def file_root(rel: str, made: bool = True) -> RootInfo:
        failing = ValueView(not made)  # when the brittle runs alone
        return RootInfo(f"file:{rel}", "file", failing, ValueView(True), path=rel)

    cache, sub = file_root("cache/"), file_root("cache/sub/")
    inner, deep = file_root("cache/a.pickle"), file_root("cache/sub/b.json")
    other, kept = file_root("cache-other.json"), file_root("data/", made=False)
    in_kept = file_root("data/new.json")
    roots = [cache, sub, inner, deep, other, kept, in_kept]
    assert outermost_files(roots, lambda r: not r.failing.present) == [
        cache, other, kept, in_kept  # a file in a directory that was there keeps its own
    ]  # fmt: skip
