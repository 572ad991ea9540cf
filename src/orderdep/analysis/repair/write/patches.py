"""Source patches for OD tests, written with libcst so formatting and comments survive.

The patch shape is iFixFlakies' (003 §2): statements inserted at the start of a test
function (after its docstring), plus the pytest fixtures they need (``monkeypatch``,
``request``) added to its parameters. The same shape serves every strategy:

* a cleaner's or state-setter's statements, or a generated reset call sequence,
  inserted into the OD test (003 §3.2.3);
* a restore of the polluted root or a polluter's guard
  (:mod:`~orderdep.analysis.repair.candidates.root_statements`).
"""

from __future__ import annotations

import ast
import difflib
import io
import textwrap
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst

from orderdep.analysis.repair.write.class_fixtures import add_class_fixture, has_method
from orderdep.analysis.repair.write.finalizers import written_already
from orderdep.analysis.repair.write.fixture_patches import (
    DECORATORS,
    add_function,
    comment_lines,
    has_function,
    narrow_scope,
)
from orderdep.analysis.repair.write.import_lifting import add_imports, liftable
from orderdep.analysis.repair.write.import_reuse import imported_once, reuse_imports
from orderdep.analysis.repair.write.inherited import defining_path
from orderdep.analysis.repair.write.module_top import add_module_statements
from orderdep.analysis.repair.write.statements import TRIPLE_QUOTES, parse_statements
from orderdep.analysis.repair.write.testcase_bases import plain_bases
from orderdep.analysis.repair.write.unittest_patches import (
    adapt_statements,
    is_docstring,
    is_super_call,
    is_testcase,
    with_setup,
)
from orderdep.core.suite import split_node_id
from orderdep.errors import UsageError

FIXTURE_PARAMS = ("monkeypatch", "request")


@dataclass(frozen=True)
class Insertion:
    """Statements to insert at the start of one test function."""

    test: str  # node id of the function to change
    statements: tuple[str, ...]
    fixtures: tuple[str, ...] = ()  # parameters the statements need
    # another method of the test's class to insert into instead (``setUp``, ``setUpClass``)
    method: Optional[str] = None
    comment: Optional[str] = None  # a line above the statements saying what they do
    # "insert" (statements into a function), "narrow" (make fixture ``test`` names
    # function-scoped), "autouse" (statements in autouse fixture ``test``, created if
    # missing), "module_autouse" (likewise, module-scoped), "session_fixture"
    # (likewise, a session-scoped fixture) or
    # "setup_function" (likewise, a plain function): see
    # :mod:`~orderdep.analysis.repair.write.fixture_patches`; "module_top" (statements at
    # the top level of ``test``'s file: :mod:`~orderdep.analysis.repair.write.module_top`)
    edit: str = "insert"
    # for "insert": the statement of the function to insert after (its ``ast.dump``, see
    # :func:`statement_key`) instead of at the start: a step a test's own set-up lacks
    after: Optional[str] = None

    @property
    def file(self) -> str:
        return self.test.split("::", 1)[0]


def statement_key(code: str) -> Optional[str]:
    """What a statement is, whatever its comments, layout and quotes: the ``ast.dump`` of
    its (dedented) code; None for code that is not one statement."""
    try:
        body = ast.parse(textwrap.dedent(code)).body
    except SyntaxError:
        return None
    return ast.dump(body[0]) if len(body) == 1 else None


def function_path(test_id: str) -> tuple[str, list[str], str]:
    """(file, enclosing classes, function name without parameters) of a node id."""
    module, classes, name = split_node_id(test_id)
    return module, classes, name.split("[", 1)[0]


# -- rewriting ---------------------------------------------------------------------------


def prefers_double_quotes(source: str) -> bool:
    """Whether ``source`` writes its one-line strings with double quotes mostly."""
    counts = {"'": 0, '"': 0}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING:
                body = tok.string.lstrip("rRbBuUfF")
                if body[:1] in counts and not body.startswith(TRIPLE_QUOTES):
                    counts[body[0]] += 1
    except (tokenize.TokenError, SyntaxError):
        return False
    return counts['"'] > counts["'"]


def _with_params(params: cst.Parameters, fixtures: Sequence[str]) -> cst.Parameters:
    present = {
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    }
    new = [cst.Param(name=cst.Name(f)) for f in fixtures if f not in present]
    if not new:
        return params
    if any(p.default is not None for p in params.params) or not isinstance(
        params.star_arg, cst.MaybeSentinel
    ):
        # after a parameter with a default (or *args) only keyword-only ones may follow
        star = params.star_arg if not isinstance(params.star_arg, cst.MaybeSentinel) else None
        return params.with_changes(
            star_arg=star or cst.ParamStar(), kwonly_params=[*params.kwonly_params, *new]
        )
    return params.with_changes(params=_appended(params.params, new))


def _appended(old: Sequence[cst.Param], new: list[cst.Param]) -> list[cst.Param]:
    """``old`` then ``new``; what followed the last parameter before (the line break of a
    signature whose ``)`` has a line of its own) follows the new last one."""
    if not old or not isinstance(old[-1].comma, cst.MaybeSentinel):
        return [*old, *new]
    last = old[-1]
    tail = last.whitespace_after_param
    new[-1] = new[-1].with_changes(whitespace_after_param=tail)
    return [*old[:-1], last.with_changes(whitespace_after_param=cst.SimpleWhitespace("")), *new]


class _Inserter(cst.CSTTransformer):
    def __init__(
        self,
        classes: Sequence[str],
        name: str,
        insertion: Insertion,
        double: bool = False,
        plain: AbstractSet[str] = frozenset(),
    ) -> None:
        self.classes, self.name, self.insertion = list(classes), name, insertion
        self.double, self.plain = double, plain
        self.scope: list[str] = []  # enclosing classes; "()" marks a function
        self.testcase: list[bool] = []  # per enclosing class: a unittest.TestCase?
        self.found = 0
        self.have: set[str] = set()  # the file's own imports, not repeated
        self.module = cst.Module([])  # the file, to tell which imports go to its top
        self.lifted: list[str] = []  # imports written at the top of the file instead

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)
        self.testcase.append(is_testcase(node, self.plain))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        self.testcase.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append("()")

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.scope.pop()
        if self.scope != self.classes or updated.name.value != self.name:
            return updated
        self.found += 1
        body = updated.body
        if isinstance(body, cst.SimpleStatementSuite):
            stmts: list[cst.BaseStatement] = [cst.SimpleStatementLine([s]) for s in body.body]
            body = cst.IndentedBlock(body=stmts)
        assert isinstance(body, cst.IndentedBlock)
        stmts = list(body.body)
        at = 1 if stmts and is_docstring(stmts[0]) else 0
        if at < len(stmts) and is_super_call(stmts[at]):
            at += 1  # after the base class's set-up
        ins = self.insertion
        if ins.after is not None:
            keys = [statement_key(cst.Module([]).code_for_node(s)) for s in stmts]
            if ins.after not in keys:
                raise UsageError(
                    f"{ins.test!r} no longer has the statement a step was to follow; "
                    "was the test changed since? Run orderdep fix again"
                )
            at = keys.index(ins.after) + 1
        unittest = bool(self.testcase and self.testcase[-1])
        code: Sequence[str] = ins.statements
        if unittest:  # no fixtures: monkeypatch and request become what a TestCase has
            # a name the method already takes (a hypothesis argument) needs no fixture
            own = {p.name.value for p in updated.params.params}
            wanted = [f for f in ins.fixtures if f not in own]
            code = adapt_statements(code, wanted, self.name, ins.file)
        code = [s for s in code if s.strip() not in self.have]
        code = reuse_imports(code, [cst.Module([]).code_for_node(s) for s in stmts])
        lifted = [
            s for s in code if s.startswith(("import ", "from ")) and liftable(s, self.module)
        ]
        self.lifted += lifted
        new = parse_statements([s for s in code if s not in lifted], self.double)
        first = new[0] if new else None
        if ins.comment and isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            lines = comment_lines(ins.comment, 4 * (len(self.classes) + 1))
            new[0] = first.with_changes(leading_lines=[*lines, *first.leading_lines])
        fixture = ins.edit in DECORATORS and DECORATORS[ins.edit] is not None
        if fixture and written_already(stmts[at:], [c for c in code if c not in lifted],
                                       ins.fixtures):  # fmt: skip
            return updated  # a fixture orderdep wrote with these statements, yield-style
        existing = [cst.Module([]).code_for_node(s).strip() for s in stmts[at : at + len(new)]]
        if existing != [cst.Module([]).code_for_node(s).strip() for s in new]:
            stmts[at:at] = new  # not already there: inserting twice would repeat the fix
            stmts = imported_once(stmts, at, len(new))
        params = updated.params if unittest else _with_params(updated.params, ins.fixtures)
        return updated.with_changes(body=body.with_changes(body=stmts), params=params)


def _top_level_imports(source: str) -> set[str]:
    """The file's module-level import statements, one name each (``import a``, ``from a
    import b``): an inserted import the file already has is left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            out.update(ast.unparse(ast.Import([a])) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.update(
                ast.unparse(ast.ImportFrom(node.module, [a], node.level)) for a in node.names
            )
    return out


def apply_insertion(
    source: str, insertion: Insertion, plain: AbstractSet[str] = frozenset()
) -> str:
    """``source`` with ``insertion`` applied (idempotent: applying it twice changes nothing);
    ``plain``: the file's base classes named like TestCases that are not one."""
    _, classes, name = function_path(insertion.test)
    name = insertion.method or name
    if insertion.method == "setUp":
        source = with_setup(source, classes)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise UsageError(f"cannot parse {insertion.file!r}: {exc}") from None
    double = prefers_double_quotes(source)
    if insertion.edit == "narrow":
        return narrow_scope(source, name, insertion.comment, insertion.file, classes)
    if insertion.edit == "module_top":
        return add_module_statements(
            source, insertion.statements, insertion.comment, insertion.file, double
        )
    in_class = insertion.edit == "autouse" and bool(classes)  # a method of a pytest class
    if insertion.edit in DECORATORS and not (
        has_method(source, classes, name) if in_class else has_function(source, name)
    ):
        stmts = [s for s in insertion.statements if s.strip() not in _top_level_imports(source)]
        imports = [s for s in stmts if s.startswith(("import ", "from ")) and liftable(s, module)]
        code = [
            cst.Module([]).code_for_node(s).strip()
            for s in parse_statements([s for s in stmts if s not in imports], double)
        ]
        if in_class:
            return add_class_fixture(
                source, classes, name, code, insertion.fixtures, insertion.comment, imports
            )
        decorator = DECORATORS[insertion.edit]
        return add_function(
            source, name, code, insertion.fixtures, insertion.comment, imports, decorator
        )
    if insertion.method is None:  # a test its class inherits: patched where it is defined
        classes = defining_path(source, classes, name)
    # inserted code quotes strings the way the file does, and does not repeat its imports
    inserter = _Inserter(classes, name, insertion, double, plain)
    inserter.have = _top_level_imports(source)
    inserter.module = module
    new = module.visit(inserter)
    new = add_imports(new, inserter.lifted)
    if inserter.found == 0 and insertion.method:
        raise UsageError(f"the class of {insertion.test!r} has no {insertion.method} method")
    if inserter.found == 0:
        raise UsageError(
            f"cannot find the function of {insertion.test!r} in {insertion.file!r}; "
            "tests generated at runtime cannot be patched."
        )
    return new.code


Changes = dict[str, tuple[str, str]]  # relative path -> (old text, new text)


def apply_insertions(
    project: Path, insertions: Sequence[Insertion], base: Optional[Mapping[str, str]] = None
) -> Changes:
    """Apply every insertion to the project's files (or to ``base`` texts, if given)."""
    texts: dict[str, str] = {}
    originals: dict[str, str] = {}
    plain: dict[str, frozenset[str]] = {}
    for ins in insertions:
        rel = ins.file
        if rel not in texts:
            if base is not None and rel in base:
                text = base[rel]
            else:
                try:
                    new_file = ins.edit in ("autouse", "module_autouse", "session_fixture")
                    missing = new_file and not (project / rel).exists()
                    text = "" if missing else (project / rel).read_text(encoding="utf-8")
                except OSError as exc:
                    raise UsageError(f"cannot read {rel!r}: {exc.strerror or exc}") from None
            texts[rel] = originals[rel] = text
        if rel not in plain:
            plain[rel] = plain_bases(project, rel)
        texts[rel] = apply_insertion(texts[rel], ins, plain[rel])
    # the texts are read with universal newlines; a file written with \r\n keeps them,
    # in the changes, the diff and the files written (else every line would change)
    return {
        rel: (dos_newlines(project / rel, originals[rel]), dos_newlines(project / rel, texts[rel]))
        for rel in texts
        if texts[rel] != originals[rel]
    }


def uses_crlf(path: Path) -> bool:
    """Whether the file at ``path`` ends its lines with ``\r\n``."""
    try:
        with open(path, "rb") as fh:
            return b"\r\n" in fh.read(65536)
    except OSError:
        return False


def dos_newlines(path: Path, text: str) -> str:
    """``text`` (read with universal newlines) with the line ends of the file at ``path``."""
    if "\r\n" in text or not uses_crlf(path):
        return text
    return text.replace("\n", "\r\n")


def unified_diff(changes: Mapping[str, tuple[str, str]]) -> str:
    """A ``git apply``/``patch -p1`` compatible diff of ``changes`` (paths as given)."""
    chunks: list[str] = []
    for rel in sorted(changes):
        old, new = changes[rel]
        lines = list(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{rel}",
                tofile=f"b/{rel}",
            )
        )
        if not lines:
            continue
        chunks.append(f"diff --git a/{rel} b/{rel}\n")
        if not old:  # a new file (a conftest.py the patch creates)
            chunks.append("new file mode 100644\n")
            lines[0] = "--- /dev/null\n"
        for line in lines:
            if line.endswith("\n"):
                chunks.append(line)
            else:  # the file's last line has no newline
                chunks.append(line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def changed_lines(changes: Mapping[str, tuple[str, str]]) -> int:
    """How many lines a change adds or removes (the size fixes are ranked by)."""
    n = 0
    for old, new in changes.values():
        for line in difflib.ndiff(old.splitlines(), new.splitlines()):
            text = line[2:].strip()
            if line[:1] in "+-" and text and not text.startswith("#"):
                n += 1  # comments and blank lines are not counted: they change nothing
    return n


def insertion(
    test: str, stmts: Sequence[str], fixtures: Sequence[str], method: Optional[str] = None
) -> Insertion:
    """An :class:`Insertion` with imports first (duplicate imports dropped), fixtures in
    order. Other statements keep their order and repeats: a cleaner that unsubscribes,
    subscribes and unsubscribes again ends clean only with the last call."""
    imports = [s for s in stmts if s.startswith(("import ", "from "))]
    rest = [s for s in stmts if s not in imports]
    fx = tuple(f for f in FIXTURE_PARAMS if f in fixtures) + tuple(
        f for f in dict.fromkeys(fixtures) if f not in FIXTURE_PARAMS
    )
    return Insertion(test, (*dict.fromkeys(imports), *rest), fx, method)


def read_sources(project: Path, files: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel in files:
        try:
            out[rel] = (project / rel).read_text(encoding="utf-8")
        except OSError:
            out[rel] = ""
    return out
