"""The test functions a fix reads and writes: their statements, parameters and module.

:func:`transplant` moves a cleaner's (state-setter's) statements into the OD test with
the imports and fixtures they need (iFixFlakies' Patcher, 003 §2); :func:`rank_cleaners`
orders cleaners by how likely their statements give a patch.
"""

from __future__ import annotations

import ast
import builtins
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.star_exports import star_names, top_level_defs
from orderdep.analysis.repair.locate.module_names import ModuleNames, module_name_for
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.write.inherited import class_at, defining_class, method_of
from orderdep.analysis.repair.write.patches import Insertion, function_path, insertion
from orderdep.errors import UsageError


@dataclass
class FunctionSource:
    """The statements and parameters of a test function, and where it lives."""

    test: str
    file: str
    module: str
    source: str  # the whole file
    statements: list[str]
    params: list[str]
    text: str  # the function's own source
    usefixtures: list[str] = field(default_factory=list)  # its and its classes' marks
    star_names: dict[str, str] = field(default_factory=dict)  # name -> star-imported module


def read_function(project: Path, test_id: str, module: Optional[str] = None) -> FunctionSource:
    rel, classes, name = function_path(test_id)
    try:
        source = (project / rel).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, SyntaxError) as exc:
        raise UsageError(f"cannot read the source of {test_id!r}: {exc}") from None
    body: list[ast.stmt] = tree.body
    marked: list[str] = []
    for cls in classes:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not found:
            raise UsageError(f"cannot find class {cls!r} of {test_id!r} in {rel!r}")
        marked += _usefixtures(found[0])
        body = found[0].body
    fns = [
        n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    defined = defining_class(tree, classes, name) if classes and not fns else None
    home = class_at(tree.body, defined) if defined else None
    fn = method_of(home, name) if home is not None else (fns[-1] if fns else None)
    if fn is None:
        raise UsageError(f"cannot find the function of {test_id!r} in {rel!r}")
    stmts = list(fn.body)
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant):
        stmts = stmts[1:]  # the docstring
    texts = [statement_text(source, s) for s in stmts]
    params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
    if classes and params:
        params = params[1:]  # self
    stars = ModuleNames.parse(source).star_imports
    return FunctionSource(
        test=test_id,
        file=rel,
        module=module or module_name_for(project, rel),
        source=source,
        statements=[t for t in texts if t.strip()],
        params=params,
        text=ast.get_source_segment(source, fn) or "",
        usefixtures=[*marked, *_usefixtures(fn)],
        star_names=star_names(project, stars) if stars else {},
    )


def doctest_source(project: Path, test_id: str) -> Optional[FunctionSource]:
    """A doctest item (``pkg/mod.py::pkg.mod.func``: pytest names it after the object
    whose docstring holds it) as a test function with no statements of its own: a fix
    cannot go into its docstring, but one in a fixture around it (an autouse fixture of
    the nearest ``conftest.py``) or in its polluter can. None for any other test id."""
    parts = test_id.split("::")
    if len(parts) != 2 or "." not in parts[1] or "[" in parts[1]:
        return None
    rel = parts[0]
    try:
        source = (project / rel).read_text(encoding="utf-8") if rel.endswith(".py") else ""
    except OSError:
        return None
    return FunctionSource(
        test=test_id,
        file=rel,
        module=module_name_for(project, rel) if rel.endswith(".py") else "",
        source=source,
        statements=[],
        params=[],
        text="",
    )


def requested_fixtures(project: Path, test_id: str) -> list[str]:
    """The fixtures ``test_id`` asks for by name: its parameters and ``usefixtures`` marks
    (none when its source cannot be read)."""
    try:
        fs = read_function(project, test_id)
    except UsageError:
        return []
    return [*fs.params, *fs.usefixtures]


def _usefixtures(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    """The fixture names of ``@pytest.mark.usefixtures(...)`` marks on ``node``."""
    out = []
    for deco in node.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("mark.usefixtures"):
            out += [a.value for a in deco.args if isinstance(a, ast.Constant)]
    return [str(n) for n in out]


def statement_text(source: str, node: ast.stmt) -> str:
    """A statement's source, dedented; a decorated class or function with its decorators
    (``ast``'s own segment starts at ``class``/``def``, and without ``@schema`` the class
    no longer registers itself)."""
    decorators = getattr(node, "decorator_list", None)
    if decorators and node.end_lineno is not None:
        lines = source.splitlines(keepends=True)
        first = min(d.lineno for d in decorators)
        return textwrap.dedent("".join(lines[first - 1 : node.end_lineno])).rstrip("\n")
    return textwrap.dedent(ast.get_source_segment(source, node, padded=True) or "")


def free_names(statements: Sequence[str]) -> list[str]:
    """The names ``statements`` read that they do not bind themselves, builtins left out."""
    loaded: dict[str, None] = {}
    stored: set[str] = set()
    for text in statements:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loaded.setdefault(node.id, None)
                else:
                    stored.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                stored.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                stored.add(node.name)
    return [n for n in loaded if n not in stored and not hasattr(builtins, n)]


def absolute_import(line: str, module: str) -> str:
    """``line`` (an import of module ``module``) with a relative import made absolute:
    ``from . import command`` in ``pkg.command_test`` is ``from pkg import command``,
    which means the same in any other module. Other lines come back unchanged."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return line
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.ImportFrom) or not node.level:
        return line
    parts = module.split(".")[:-1]  # the package a plain module is in
    if node.level - 1 > len(parts) or (node.level - 1 == len(parts) and not node.module):
        return line  # beyond the top-level package
    base = parts[: len(parts) - (node.level - 1)]
    target = ".".join([*base, *([node.module] if node.module else [])])
    if not target:
        return line
    return ast.unparse(ast.ImportFrom(module=target, names=node.names, level=0))


def transplant(
    statements: Sequence[str], donor: FunctionSource, victim: FunctionSource
) -> Insertion:
    """``statements`` of ``donor`` as an insertion into ``victim``'s test function.

    Names the statements take from the donor's module are imported locally (its import
    line, ``from <donor module> import name``, or ``from <module> import name`` for a name
    the donor has from a star import of a project module); parameters of the donor they use
    become fixtures of the victim.
    """
    free = free_names(statements)
    fixtures = [n for n in free if n in donor.params]
    imports: list[str] = []
    if donor.file != victim.file:
        d_names = ModuleNames.parse(donor.source, donor.module)
        v_names = ModuleNames.parse(victim.source, victim.module)
        defs = top_level_defs(donor.source)
        for n in free:
            if n in fixtures:
                continue
            line = d_names.import_lines.get(n)
            if line is not None:
                line = absolute_import(line, donor.module)
                if v_names.import_lines.get(n) != line:
                    imports.append(line)
            elif n in defs:
                imports.append(f"from {donor.module} import {n}")
            elif (
                n in donor.star_names
                and n not in v_names.import_lines
                and victim.star_names.get(n) != donor.star_names[n]
            ):
                imports.append(f"from {donor.star_names[n]} import {n}")
    return insertion(victim.test, [*imports, *statements], fixtures)


def transplant_group(
    statements: Sequence[tuple[int, str]], donors: Sequence[FunctionSource], victim: FunctionSource
) -> Insertion:
    """Statements of several donors (``(index into donors, statement)``, in order) as one
    insertion into ``victim``: each donor's run of statements transplanted, imports first."""
    stmts: list[str] = []
    fixtures: list[str] = []
    runs: list[tuple[int, list[str]]] = []
    for index, text in statements:
        if runs and runs[-1][0] == index:
            runs[-1][1].append(text)
        else:
            runs.append((index, [text]))
    for index, texts in runs:
        ins = transplant(texts, donors[index], victim)
        stmts += ins.statements
        fixtures += ins.fixtures
    return insertion(victim.test, stmts, fixtures)


def _touches_module(donor: FunctionSource, modules: set[str]) -> bool:
    """Whether the donor's statements name one of ``modules`` (or what they import from it)."""
    if not modules:
        return False
    free = set(free_names(donor.statements))
    if donor.module in modules:
        return True
    names = ModuleNames.parse(donor.source, donor.module)
    bound = {
        b for m, b in names.imports.items() if any(m == r or m.startswith(r + ".") for r in modules)
    }
    return bool(free & bound)


def rank_cleaners(
    project: Path, cleaners: Sequence[str], victim: FunctionSource, culprits: Sequence[RootInfo]
) -> list[str]:
    """Cleaners most likely to give a patch first, report order within each rank.

    0. tests of the victim's own module (its module fixtures and globals are theirs too;
       every test of another module "cleans" a module fixture just by tearing it down);
    1. tests sharing a fixture with the victim, or naming the module of a polluted root;
    2. the rest (3: those whose source cannot be read).
    """
    modules = {m for r in culprits for m in (r.module, r.value_module) if m}
    shared = set(victim.params) | {r.fixture for r in culprits if r.fixture}

    def rank(test: str) -> int:
        if test.split("::", 1)[0] == victim.file:
            return 0
        try:
            donor = read_function(project, test)
        except UsageError:
            return 3
        if set(donor.params) & shared or _touches_module(donor, modules):
            return 1
        return 2

    return sorted(cleaners, key=rank)
