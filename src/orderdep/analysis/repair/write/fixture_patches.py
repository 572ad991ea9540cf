"""Fixture-side edits: narrow a fixture's scope, add an autouse fixture or a setup function.

Both are :class:`~orderdep.analysis.repair.write.patches.Insertion` s with another ``edit``:

``narrow``
    ``@pytest.fixture(scope="session")`` becomes ``@pytest.fixture``: each test gets a
    fresh value, so what one test does to it cannot reach the next.
``setup_function``
    xunit's ``setup_function`` calling the module's ``setup_module``: what it sets up
    (a file, a database) is made again before every test, the xunit way of narrowing.
``autouse``
    a function-scoped autouse fixture, added to a ``conftest.py`` (created if missing),
    whose statements save the polluted root and put it back around every test of that
    directory (``monkeypatch``, ``request.addfinalizer``). When the fixture is there
    already, its statements are inserted into it like into any function.
``session_fixture``
    likewise a session-scoped fixture (what a root held when the session started, which
    an autouse fixture puts back before every test, :mod:`.session_start`).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Optional

import libcst as cst

from orderdep.analysis.repair.write.finalizers import yield_style
from orderdep.analysis.repair.write.import_lifting import add_imports
from orderdep.analysis.repair.write.statements import function_body
from orderdep.errors import UsageError

COMMENT_WIDTH = 88


# ``TestA.test_b`` named in a parenthesis, as comments name tests
_CLASS_QUALIFIED = re.compile(r"\b\w+\.(test\w*)")
_PARENTHESIS = re.compile(r" \([^()]*\)")
_CLAUSE = re.compile(r"[;:] ")
_WHEN = re.compile(r" when (it|the test) ends")
# the tests a comment names as needing its statement: "(test_a, test_b and test_c need it)"
_NEED_LIST = re.compile(r"\(([^()]+) need it\)")
#: Tests a comment names before "and N other tests".
NAMED_TESTS = 2


def fewer_names(text: str, named: int = NAMED_TESTS) -> str:
    """``text`` with each ``(a, b, c and d need it)`` that names more than ``named + 1``
    tests cut to ``(a, b and 2 other tests need it)``."""

    def cut(found: re.Match[str]) -> str:
        names = re.split(r", | and ", found[1])
        if len(names) <= named + 1:
            return found[0]
        return f"({', '.join(names[:named])} and {len(names) - named} other tests need it)"

    return _NEED_LIST.sub(cut, text)


def one_line(text: str, width: int) -> Optional[str]:
    """``text`` within ``width`` columns, shortened if need be: tests named by function
    alone in parentheses, then the clause after a ``;`` (then a ``:``) left out, then the
    parentheses, then "when it ends"; None when even that does not fit."""
    named = _PARENTHESIS.sub(lambda m: _CLASS_QUALIFIED.sub(r"\1", m.group(0)), text)
    first = named.split("; ", 1)[0].rstrip(".") + "."
    head = _CLAUSE.split(named, maxsplit=1)[0].rstrip(".") + "."
    bare = _PARENTHESIS.sub("", head)
    for variant in (text, named, fewer_names(named), first, head, bare, _WHEN.sub("", bare)):
        if len(variant) <= width:
            return variant
    return None


def comment_lines(text: Optional[str], indent: int = 0) -> list[cst.EmptyLine]:
    """``text`` as comment lines that fit in :data:`COMMENT_WIDTH` columns: one line,
    shortened as :func:`one_line` does, when it can be; else wrapped, with the tests it
    names cut to a few (:func:`fewer_names`)."""
    width = COMMENT_WIDTH - indent - 2
    line = one_line(text or "", width)
    lines = [line] if line else textwrap.wrap(fewer_names(text or ""), width)
    return [cst.EmptyLine(comment=cst.Comment(f"# {line}")) for line in lines]


def _is_fixture(deco: cst.Decorator) -> Optional[cst.BaseExpression]:
    expr = deco.decorator
    target = expr.func if isinstance(expr, cst.Call) else expr
    text = cst.Module([]).code_for_node(target)
    return expr if text in ("pytest.fixture", "fixture") else None


class _Narrower(cst.CSTTransformer):
    """Drops ``scope=`` from fixture ``name`` defined in ``classes`` (nested, outermost
    first; none for a module-level fixture)."""

    def __init__(self, classes: Sequence[str], name: str, comment: Optional[str]) -> None:
        self.classes, self.name, self.comment = tuple(classes), name, comment
        self.found = 0
        self.exists = False
        self.depth = 0  # functions entered
        self.stack: list[str] = []  # classes entered

    def _on_path(self) -> bool:
        return tuple(self.stack) == self.classes[: len(self.stack)]

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append(node.name.value)
        return not self.depth and self._on_path()

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.stack.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return self.depth == 1

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.depth -= 1
        if self.depth or updated.name.value != self.name or tuple(self.stack) != self.classes:
            return updated
        self.exists = True
        decorators = list(updated.decorators)
        found = 0
        for i, deco in enumerate(decorators):
            expr = _is_fixture(deco)
            if not isinstance(expr, cst.Call):
                continue
            args = [a for a in expr.args if not (a.keyword and a.keyword.value == "scope")]
            if len(args) == len(expr.args):
                continue
            found += 1
            if args:
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                decorators[i] = deco.with_changes(decorator=expr.with_changes(args=args))
            else:
                decorators[i] = deco.with_changes(decorator=expr.func)
        if not found:
            return updated
        self.found += found
        lead = [*updated.leading_lines, *comment_lines(self.comment, 4 * len(self.stack))]
        return updated.with_changes(decorators=decorators, leading_lines=lead)


def narrow_scope(
    source: str, name: str, comment: Optional[str], file: str, classes: Sequence[str] = ()
) -> str:
    """``source`` with fixture function ``name`` (a method of ``classes``, nested
    outermost first, when given) made function-scoped."""
    module = cst.parse_module(source)
    narrower = _Narrower(classes, name, comment)
    new = module.visit(narrower)
    if not narrower.exists:
        where = "::".join([*classes, name])
        raise UsageError(f"no fixture {where!r} with a scope in {file!r}")
    return new.code


def has_function(source: str, name: str) -> bool:
    module = cst.parse_module(source) if source.strip() else cst.Module([])
    return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in module.body)


AUTOUSE = "@pytest.fixture(autouse=True)"
# the decorator of each edit that adds a function (None: a plain function)
DECORATORS: dict[str, Optional[str]] = {
    "autouse": AUTOUSE,
    # around each module: what a module's own set-up (``setup_module``) changes is put
    # back when it ends
    "module_autouse": '@pytest.fixture(scope="module", autouse=True)',
    "fixture": "@pytest.fixture",  # one that tests request by name
    "session_fixture": '@pytest.fixture(scope="session")',
    "setup_function": None,
}


def add_function(
    source: str,
    name: str,
    statements: Sequence[str],
    fixtures: Sequence[str],
    comment: Optional[str],
    lifted: Sequence[str],
    decorator: Optional[str] = AUTOUSE,
) -> str:
    """``source`` with a new function ``name`` (an autouse fixture, or with no
    ``decorator`` a plain one such as ``setup_function``) running ``statements``, whose
    imports ``lifted`` go to the top of the file."""
    module = cst.parse_module(source) if source.strip() else cst.Module([])
    bare = decorator is not None and imports_fixture_bare(module)
    if bare:  # the file says `from pytest import fixture`: so does the new fixture
        assert decorator is not None
        decorator = decorator.replace("@pytest.fixture", "@fixture", 1)
    head = f"{decorator}\n" if decorator else ""
    rewritten = yield_style(statements, fixtures) if decorator else None
    if rewritten is not None:  # its clean-up after a yield, as a maintainer writes it
        statements, fixtures = rewritten
    fn = cst.parse_statement(f"{head}def {name}({', '.join(fixtures)}):\n    pass\n")
    assert isinstance(fn, cst.FunctionDef)
    inner = function_body(statements, comment_lines(comment, 4))
    blank = [cst.EmptyLine(), cst.EmptyLine()] if module.body else []
    fn = fn.with_changes(body=inner, leading_lines=blank)
    module = module.with_changes(body=[*module.body, fn])
    pytest_import = ["import pytest"] if decorator and not bare else []
    return add_imports(module, [*pytest_import, *lifted]).code


def imports_fixture_bare(module: cst.Module) -> bool:
    """Whether ``module`` imports ``fixture`` from pytest at its top and not pytest itself
    (``from pytest import fixture``)."""
    bare = plain = False
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name):
                names = small.names
                if small.module.value == "pytest" and not isinstance(names, cst.ImportStar):
                    bare |= any(
                        a.asname is None
                        and isinstance(a.name, cst.Name)
                        and a.name.value == "fixture"
                        for a in names
                    )
            elif isinstance(small, cst.Import):
                plain |= any(
                    isinstance(a.name, cst.Name) and a.name.value == "pytest" and a.asname is None
                    for a in small.names
                )
    return bare and not plain
