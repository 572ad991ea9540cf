"""The fixtures a test uses, read from the source: where each is defined and its scope.

pytest resolves a fixture name to the closest definition: the test's class, its module,
then ``conftest.py`` files from the test's directory up to the rootdir. This module does
the same on the AST (no pytest import), so fixture-side fixes know which function to
change: narrow a wide scope, or make the fixture undo a change when it ends.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional

from orderdep.analysis.repair.write.patches import function_path

WIDE_SCOPES = ("class", "module", "package", "session")
BUILTIN = frozenset(
    {"request", "monkeypatch", "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory",
     "capsys", "capfd", "caplog", "recwarn", "pytestconfig", "cache", "doctest_namespace",
     "capsysbinary", "capfdbinary", "record_property", "record_testsuite_property"}
)  # fmt: skip


@dataclass(frozen=True)
class FixtureDef:
    """One fixture function of the project."""

    file: str  # relative to the project, posix
    name: str  # the function's name (also the fixture's, unless ``name=`` renames it)
    scope: str  # function, class, module, package or session
    params: tuple[str, ...]  # fixtures it requests
    autouse: bool
    generator: bool  # has a ``yield`` (teardown after it)
    classes: tuple[str, ...] = ()  # the test classes it is a method of, outermost first

    @property
    def node_id(self) -> str:
        """``file::name`` (``file::Class::name`` for a method): the shape patches address
        functions by."""
        return "::".join([self.file, *self.classes, self.name])


def _fixture_call(deco: ast.expr) -> Optional[ast.expr]:
    """The decorator if it is ``pytest.fixture`` / ``fixture``, called or not."""
    target = deco.func if isinstance(deco, ast.Call) else deco
    text = ast.unparse(target)
    return deco if text in ("pytest.fixture", "fixture") else None


def _keyword(call: ast.expr, name: str) -> Optional[ast.expr]:
    if isinstance(call, ast.Call):
        for kw in call.keywords:
            if kw.arg == name:
                return kw.value
    return None


def parse_fixtures(
    source: str,
    file: str,
    body: Optional[Sequence[ast.stmt]] = None,
    classes: Sequence[str] = (),
) -> dict[str, FixtureDef]:
    """The fixtures defined at the top of ``source`` (or in ``body``, the body of
    ``classes``), by fixture name."""
    if body is None:
        try:
            body = ast.parse(source).body
        except SyntaxError:
            return {}
    out: dict[str, FixtureDef] = {}
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        decos = [d for d in map(_fixture_call, node.decorator_list) if d is not None]
        if not decos:
            continue
        deco = decos[0]
        scope_node = _keyword(deco, "scope")
        scope = scope_node.value if isinstance(scope_node, ast.Constant) else "function"
        if not isinstance(scope, str):
            continue  # a callable scope: decided at run time
        name_node = _keyword(deco, "name")
        name = name_node.value if isinstance(name_node, ast.Constant) else node.name
        autouse_node = _keyword(deco, "autouse")
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        out[str(name)] = FixtureDef(
            file=file,
            name=node.name,
            scope=scope,
            params=tuple(params),
            autouse=isinstance(autouse_node, ast.Constant) and autouse_node.value is True,
            generator=any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)),
            classes=tuple(classes),
        )
    return out


def _read(project: Path, rel: str) -> str:
    try:
        return (project / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _conftests(rel_file: str) -> Iterator[str]:
    """``conftest.py`` paths from the test file's directory up to the project root."""
    parent = PurePosixPath(rel_file).parent
    while True:
        yield (parent / "conftest.py").as_posix() if str(parent) != "." else "conftest.py"
        if str(parent) == ".":
            return
        parent = parent.parent


class FixtureIndex:
    """Resolves fixture names for the tests of one project (files parsed once)."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self._files: dict[str, dict[str, FixtureDef]] = {}

    def _defs(self, rel: str) -> dict[str, FixtureDef]:
        if rel not in self._files:
            self._files[rel] = parse_fixtures(_read(self.project, rel), rel)
        return self._files[rel]

    def _class_defs(self, rel: str, classes: Sequence[str]) -> dict[str, FixtureDef]:
        try:
            body: list[ast.stmt] = ast.parse(_read(self.project, rel)).body
        except SyntaxError:
            return {}
        out: dict[str, FixtureDef] = {}
        for depth, cls in enumerate(classes, 1):
            found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
            if not found:
                break
            body = found[0].body
            out.update(parse_fixtures("", rel, body, classes[:depth]))
        return out

    def resolve(self, test: str, name: str) -> Optional[FixtureDef]:
        """The definition of fixture ``name`` as test ``test`` sees it (None: a builtin
        or a plugin's fixture)."""
        rel, classes, _ = function_path(test)
        for defs in (self._class_defs(rel, classes), self._defs(rel)):
            if name in defs:
                return defs[name]
        for conftest in _conftests(rel):
            if name in self._defs(conftest):
                return self._defs(conftest)[name]
        return None

    def closure(self, test: str, params: Sequence[str]) -> list[FixtureDef]:
        """The project's fixtures ``test`` uses (through ``params``, the ones they request
        and the autouse ones of its module and conftests), first requested first."""
        rel, classes, _ = function_path(test)
        autouse = [n for n, d in self._class_defs(rel, classes).items() if d.autouse]
        autouse += [n for n, d in self._defs(rel).items() if d.autouse]
        for conftest in _conftests(rel):
            autouse += [n for n, d in self._defs(conftest).items() if d.autouse]
        out: dict[tuple[str, str], FixtureDef] = {}
        todo = [*params, *autouse]
        while todo:
            name = todo.pop(0)
            if name in BUILTIN:
                continue
            found = self.resolve(test, name)
            if found is None or (found.file, found.name) in out:
                continue
            out[(found.file, found.name)] = found
            todo += [p for p in found.params if p != name]
        return list(out.values())
