"""Source patches for OD tests, written with libcst so formatting and comments survive.

The patch shape is iFixFlakies' (003 §2): statements inserted at the start of a test
function (after its docstring), plus the pytest fixtures they need (``monkeypatch``,
``request``) added to its parameters. The same shape serves every strategy:

* a cleaner's or state-setter's statements, or a generated reset call sequence,
  inserted into the OD test (003 §3.2.3);
* a restore of the polluted root through ``monkeypatch`` (undone after the test), or an
  in-place reset, inserted into the OD test (:func:`restore_insertions`);
* a guard inserted into each polluter that saves the root and puts it back when the
  polluter ends (:func:`guard_insertions`).

:func:`module_reference` decides how the inserted code names a module: through an import
the test module already has, else a local import with a name the module does not use.
"""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import libcst as cst

from orderdep.analysis.repair.debugger import RootInfo
from orderdep.analysis.repair.probe_roots import sysmodule_name
from orderdep.core.suite import split_node_id
from orderdep.errors import UsageError

FIXTURE_PARAMS = ("monkeypatch", "request")


@dataclass(frozen=True)
class Insertion:
    """Statements to insert at the start of one test function."""

    test: str  # node id of the function to change
    statements: tuple[str, ...]
    fixtures: tuple[str, ...] = ()  # parameters the statements need

    @property
    def file(self) -> str:
        return self.test.split("::", 1)[0]


def function_path(test_id: str) -> tuple[str, list[str], str]:
    """(file, enclosing classes, function name without parameters) of a node id."""
    module, classes, name = split_node_id(test_id)
    return module, classes, name.split("[", 1)[0]


# -- rewriting ---------------------------------------------------------------------------
def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


TRIPLE_QUOTES = ("'" * 3, '"' * 3)


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


class _DoubleQuotes(cst.CSTTransformer):
    """``'text'`` -> ``"text"`` where that needs no escaping (generated code uses repr)."""

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.SimpleString:
        value = updated.value
        prefix = value[: len(value) - len(value.lstrip("rRbBuU"))]
        body = value[len(prefix) :]
        plain = body.startswith("'") and not body.startswith(TRIPLE_QUOTES)
        if plain and not set(body[1:-1]) & {'"', "\\"}:
            return updated.with_changes(value=f'{prefix}"{body[1:-1]}"')
        return updated


def _parse_statements(code: Iterable[str], double: bool = False) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    for text in code:
        module = cst.parse_module(text.strip() + "\n")
        if double:
            module = module.visit(_DoubleQuotes())
        out.extend(module.body)
    return out


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
    return params.with_changes(params=[*params.params, *new])


class _Inserter(cst.CSTTransformer):
    def __init__(
        self, classes: Sequence[str], name: str, insertion: Insertion, double: bool = False
    ) -> None:
        self.classes, self.name, self.insertion = list(classes), name, insertion
        self.double = double
        self.scope: list[str] = []  # enclosing classes; "()" marks a function
        self.found = 0

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
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
        at = 1 if stmts and _is_docstring(stmts[0]) else 0
        new = _parse_statements(self.insertion.statements, self.double)
        existing = [cst.Module([]).code_for_node(s).strip() for s in stmts[at : at + len(new)]]
        if existing != [cst.Module([]).code_for_node(s).strip() for s in new]:
            stmts[at:at] = new  # not already there: inserting twice would repeat the fix
        return updated.with_changes(
            body=body.with_changes(body=stmts),
            params=_with_params(updated.params, self.insertion.fixtures),
        )


def apply_insertion(source: str, insertion: Insertion) -> str:
    """``source`` with ``insertion`` applied (idempotent: applying it twice changes nothing)."""
    _, classes, name = function_path(insertion.test)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise UsageError(f"cannot parse {insertion.file!r}: {exc}") from None
    # inserted code quotes strings the way the file does
    inserter = _Inserter(classes, name, insertion, prefers_double_quotes(source))
    new = module.visit(inserter)
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
    for ins in insertions:
        rel = ins.file
        if rel not in texts:
            if base is not None and rel in base:
                text = base[rel]
            else:
                try:
                    text = (project / rel).read_text(encoding="utf-8")
                except OSError as exc:
                    raise UsageError(f"cannot read {rel!r}: {exc.strerror or exc}") from None
            texts[rel] = originals[rel] = text
        texts[rel] = apply_insertion(texts[rel], ins)
    return {rel: (originals[rel], texts[rel]) for rel in texts if texts[rel] != originals[rel]}


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
            if line[:1] in "+-":
                n += 1
    return n


# -- naming modules from inside a test ---------------------------------------------------------
@dataclass
class ModuleNames:
    """What a test module binds at top level (from its source)."""

    imports: dict[str, str] = field(default_factory=dict)  # module -> expression naming it
    taken: set[str] = field(default_factory=set)  # every name the source uses or binds
    import_lines: dict[str, str] = field(default_factory=dict)  # bound name -> import stmt

    @classmethod
    def parse(cls, source: str, module_name: Optional[str] = None) -> ModuleNames:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return cls()
        out = cls()
        package = (module_name or "").rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                out.taken.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.taken.add(node.name)
            elif isinstance(node, ast.arg):
                out.taken.add(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    out.taken.add((alias.asname or alias.name).split(".")[0])
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    out.import_lines[bound] = ast.unparse(ast.Import([alias]))
                    if alias.asname:
                        out.imports.setdefault(alias.name, alias.asname)
                    else:
                        parts = alias.name.split(".")
                        for i in range(1, len(parts) + 1):
                            out.imports.setdefault(".".join(parts[:i]), ".".join(parts[:i]))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{pkg}.{base}".strip(".") if base else pkg
                for alias in node.names:
                    bound = alias.asname or alias.name
                    out.import_lines[bound] = ast.unparse(
                        ast.ImportFrom(node.module, [alias], node.level)
                    )
                    out.imports.setdefault(f"{base}.{alias.name}".strip("."), bound)
        return out


def module_reference(module: str, names: ModuleNames) -> tuple[str, list[str]]:
    """(expression naming ``module`` inside a test function, import statements it needs)."""
    if module in names.imports:
        return names.imports[module], []
    head, _, last = module.rpartition(".")
    for alias in (last, f"{last}_module", f"_{last}"):
        if alias not in names.taken and alias.isidentifier():
            if head:
                return alias, [
                    f"from {head} import {last}" + (f" as {alias}" if alias != last else "")
                ]
            return alias, [f"import {module}" + (f" as {alias}" if alias != module else "")]
    alias = f"orderdep_{module.replace('.', '_')}"
    return alias, [f"import {module} as {alias}"]


def module_name_for(project: Path, rel_file: str) -> str:
    """The name pytest's default (prepend) import mode gives a test file."""
    path = project / rel_file
    parts = [path.stem]
    parent = path.parent
    while (parent / "__init__.py").is_file() and parent != project.parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


# -- statements that restore or guard a root -------------------------------------------------
Stmts = tuple[list[str], list[str]]  # (statements, fixtures they need)


def attribute_reference(
    module: str, attrs: Sequence[str], names: ModuleNames
) -> tuple[str, list[str]]:
    """Expression for ``module.attrs...`` inside a test function, and the imports it needs.

    Prefers what the test module already imports (``from app.meter import Meter`` makes
    ``app.meter.Meter.hits`` simply ``Meter.hits``).
    """
    for i in range(len(attrs), -1, -1):
        key = ".".join([module, *attrs[:i]])
        if key in names.imports:
            return ".".join([names.imports[key], *attrs[i:]]), []
    expr, imports = module_reference(module, names)
    return ".".join([expr, *attrs]), imports


def _owner(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> tuple[str, list[str]]:
    """Expression for the object holding the root's last attribute, and imports."""
    assert root.module is not None
    if root.module == test_module:
        if len(root.attrs) == 1:
            return "", []  # the test's own global: reached through globals()
        return ".".join(root.attrs[:-1]), []
    return attribute_reference(root.module, root.attrs[:-1], names)


def _ref(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> tuple[str, list[str]]:
    """Expression for the root's value itself (for in-place changes), and imports."""
    assert root.module is not None
    if root.module == test_module:
        return ".".join(root.attrs), []
    return attribute_reference(root.module, root.attrs, names)


def _file_expr(path: str) -> tuple[str, list[str]]:
    if path.startswith("~/"):
        return f"pathlib.Path.home().joinpath({path[2:]!r})", ["import pathlib"]
    if path.startswith("$TMP/"):
        return f"pathlib.Path(tempfile.gettempdir(), {path[5:]!r})", [
            "import pathlib",
            "import tempfile",
        ]
    return f"request.config.rootpath.joinpath({path!r})", []


def _atom_literal(desc: Any) -> Optional[str]:
    """The literal of a described atom (``['atom', 'int', '0']``), if it is one."""
    if not (isinstance(desc, list) and len(desc) == 3 and desc[0] == "atom"):
        return None
    try:
        ast.literal_eval(desc[2])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return str(desc[2])


def changed_attributes(root: RootInfo) -> dict[str, str]:
    """Attribute -> passing literal for an object changed in place ({} if not expressible).

    Only when every attribute that differs had a literal value in the passing order.
    """
    f, p = root.failing.desc, root.passing.desc
    if not (isinstance(f, list) and isinstance(p, list) and f[:2] == p[:2] and f[0] == "obj"):
        return {}
    fa, pa = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
    out: dict[str, str] = {}
    for key in sorted(set(fa) | set(pa)):
        if fa.get(key) == pa.get(key):
            continue
        value = _atom_literal(pa.get(key))
        if value is None or not str(key).isidentifier():
            return {}
        out[str(key)] = value
    return out


def desc_literal(desc: Any) -> Optional[str]:
    """Python literal of a described value (atoms, dicts, lists, tuples, sets of them)."""
    text = _desc_literal(desc, 0)
    if text is None:
        return None
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text


def _desc_literal(desc: Any, depth: int) -> Optional[str]:
    if depth > 8 or not (isinstance(desc, list) and len(desc) == 3):
        return None
    tag, tname, payload = desc
    if tag == "atom":
        return _atom_literal(desc)
    if tag == "dict" and tname == "dict":
        items = []
        for key, value in payload:
            text = _desc_literal(value, depth + 1)
            if text is None or _atom_literal(["atom", "", key]) is None:
                return None
            items.append(f"{key}: {text}")
        return "{" + ", ".join(items) + "}"
    if tag == "seq" and tname in ("list", "tuple"):
        parts = [_desc_literal(v, depth + 1) for v in payload]
        if any(x is None for x in parts):
            return None
        inner = ", ".join(str(x) for x in parts)
        if tname == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(parts) == 1 else f"({inner})"
    if tag == "set" and tname == "set":
        if any(_atom_literal(["atom", "", x]) is None for x in payload):
            return None
        return "{" + ", ".join(payload) + "}" if payload else "set()"
    return None


def _refill(ref: str, type_name: str, literal: str) -> list[str]:
    """Statements giving the object ``ref`` (of ``type_name``) the value ``literal`` in place."""
    if type_name in ("dict", "set"):
        empty = literal in ("{}", "set()")
        return [f"{ref}.clear()", *([] if empty else [f"{ref}.update({literal})"])]
    if type_name == "list":
        return [f"{ref}[:] = {literal}"]
    return []


def _desc_type(desc: Any) -> str:
    return str(desc[1]) if isinstance(desc, list) and len(desc) == 3 else ""


def attribute_restores(root: RootInfo, ref: str) -> Optional[list[str]]:
    """Statements putting back, in place, every attribute of object ``ref`` that differs
    from the passing value (containers refilled, other values assigned); None when one of
    them has no literal."""
    f, p = root.failing.desc, root.passing.desc
    if not (isinstance(f, list) and isinstance(p, list) and f[:2] == p[:2] and f[0] == "obj"):
        return None
    fa, pa = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
    out: list[str] = []
    for key in sorted(set(fa) | set(pa)):
        if fa.get(key) == pa.get(key):
            continue
        if not str(key).isidentifier():
            return None
        if key not in pa:
            out.append(f"del {ref}.{key}")
            continue
        literal = desc_literal(pa[key])
        if literal is None:
            return None
        same_type = _desc_type(fa.get(key)) == _desc_type(pa[key])
        refill = _refill(f"{ref}.{key}", _desc_type(pa[key]), literal) if same_type else []
        out += refill or [f"{ref}.{key} = {literal}"]
    return out or None


def _fixture_restores(root: RootInfo) -> list[Stmts]:
    """A fixture value back to its fresh content, in place, at the start of the test."""
    assert root.fixture is not None
    ref, p = root.fixture, root.passing
    out: list[Stmts] = []
    literal = p.literal if p.literal is not None else desc_literal(p.desc)
    if literal is not None and _refill(ref, p.type, literal):
        out.append((_refill(ref, p.type, literal), [ref]))
    in_place = attribute_restores(root, ref)
    if in_place:
        out.append((in_place, [ref]))
    return out


def restore_statements(
    root: RootInfo, names: ModuleNames, test_module: Optional[str]
) -> list[Stmts]:
    """Ways to put ``root`` back to its passing value at the start of the OD test.

    Alternatives, smallest first; each is verified before it is offered.
    """
    out: list[Stmts] = []
    p = root.passing
    if root.kind in ("global", "classattr") and root.module:
        owner, imports = _owner(root, names, test_module)
        attr = root.attrs[-1]
        ref, ref_imports = _ref(root, names, test_module)
        if p.present and p.literal is not None:
            # in place: code holding a reference to the object sees the reset too
            if p.type == "dict" or p.type == "set":
                fill = [] if p.literal in ("{}", "set()") else [f"{ref}.update({p.literal})"]
                out.append(([*ref_imports, f"{ref}.clear()", *fill], []))
            elif p.type == "list":
                out.append(([*ref_imports, f"{ref}[:] = {p.literal}"], []))
            if owner:
                out.append(
                    (
                        [*imports, f"monkeypatch.setattr({owner}, {attr!r}, {p.literal})"],
                        ["monkeypatch"],
                    )
                )
            else:
                out.append(
                    ([f"monkeypatch.setitem(globals(), {attr!r}, {p.literal})"], ["monkeypatch"])
                )
        elif not p.present and root.failing.present and owner:
            out.append(
                (
                    [*imports, f"monkeypatch.delattr({owner}, {attr!r}, raising=False)"],
                    ["monkeypatch"],
                )
            )
        elif p.present:
            # an object changed in place: put back the attributes that differ
            fields = changed_attributes(root)
            if fields:
                sets = [f"monkeypatch.setattr({ref}, {a!r}, {v})" for a, v in fields.items()]
                out.append(([*ref_imports, *sets], ["monkeypatch"]))
    elif root.kind == "cache" and root.module:
        ref, imports = _ref(root, names, test_module)
        out.append(([*imports, f"{ref}.cache_clear()"], []))
    elif root.kind == "fixture" and root.fixture:
        out += _fixture_restores(root)
    elif root.kind == "sysmodule" and not p.present and root.failing.present:
        module = sysmodule_name(root.name)
        if module is not None:
            sys_ref, imports = module_reference("sys", names)
            stmt = f"monkeypatch.delitem({sys_ref}.modules, {module!r}, raising=False)"
            out.append(([*imports, stmt], ["monkeypatch"]))
    elif root.kind == "env" and root.var:
        if p.present and p.literal is not None:
            out.append(([f"monkeypatch.setenv({root.var!r}, {p.literal})"], ["monkeypatch"]))
        elif not p.present:
            out.append(([f"monkeypatch.delenv({root.var!r}, raising=False)"], ["monkeypatch"]))
    elif root.kind == "cwd" and p.literal is not None:
        where = (
            "request.config.rootpath"
            if p.literal == "'.'"
            else f"request.config.rootpath.joinpath({p.literal})"
        )
        out.append(([f"monkeypatch.chdir({where})"], ["monkeypatch", "request"]))
    elif root.kind == "file" and root.path:
        expr, imports = _file_expr(root.path)
        fixtures = [] if root.path.startswith(("$TMP/", "~/")) else ["request"]
        if not p.present and root.name.endswith("/"):
            out.append(
                (
                    [*imports, "import shutil", f"shutil.rmtree({expr}, ignore_errors=True)"],
                    fixtures,
                )
            )
        elif not p.present:
            out.append(([*imports, f"{expr}.unlink(missing_ok=True)"], fixtures))
        elif p.literal is not None:
            out.append(([*imports, f"{expr}.write_text({p.literal})"], fixtures))
    return out


def guard_statements(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> list[Stmts]:
    """Ways for a polluter to undo its write to ``root`` when it ends (teardown)."""
    out: list[Stmts] = []
    p = root.passing
    if root.kind in ("global", "classattr") and root.module:
        owner, imports = _owner(root, names, test_module)
        attr = root.attrs[-1]
        ref = f"{owner}.{attr}" if owner else attr
        if p.type in ("dict", "set", "list"):
            # work on a copy; monkeypatch puts the untouched original back afterwards
            value = f"copy.deepcopy({ref})"
            imports = [*imports, "import copy"]
        else:
            value = ref
        if owner:
            out.append(
                ([*imports, f"monkeypatch.setattr({owner}, {attr!r}, {value})"], ["monkeypatch"])
            )
        else:
            out.append(
                ([*imports, f"monkeypatch.setitem(globals(), {attr!r}, {value})"], ["monkeypatch"])
            )
        obj, obj_imports = _ref(root, names, test_module)
        if p.type in ("dict", "set", "list"):
            # in place when the polluter writes through another name of the same object
            refill = "extend" if p.type == "list" else "update"
            out.append(
                (
                    [
                        *obj_imports,
                        "import copy",
                        f"saved = copy.deepcopy({obj})",
                        f"request.addfinalizer(lambda: ({obj}.clear(), {obj}.{refill}(saved)))",
                    ],
                    ["request"],
                )
            )
        fields = changed_attributes(root)
        if fields:  # an object changed in place: monkeypatch puts its attributes back
            sets = [f"monkeypatch.setattr({obj}, {a!r}, {obj}.{a})" for a in fields]
            out.insert(0, ([*obj_imports, *sets], ["monkeypatch"]))
    elif root.kind == "cache" and root.module:
        ref, imports = _ref(root, names, test_module)
        out.append(([*imports, f"request.addfinalizer({ref}.cache_clear)"], ["request"]))
    elif root.kind == "fixture" and root.fixture:
        # the polluter puts the fixture's value back when it ends (a deep copy of it now)
        ref = root.fixture
        if p.type in ("dict", "set", "list"):
            refill = "extend" if p.type == "list" else "update"
            finish = f"({ref}.clear(), {ref}.{refill}(saved))"
            saved = f"saved = copy.deepcopy({ref})"
        else:
            finish = f"(vars({ref}).clear(), vars({ref}).update(saved))"
            saved = f"saved = copy.deepcopy(vars({ref}))"
        out.append(
            (["import copy", saved, f"request.addfinalizer(lambda: {finish})"], ["request", ref])
        )
    elif root.kind == "sysmodule" and not p.present:
        module = sysmodule_name(root.name)
        if module is not None:
            sys_ref, imports = module_reference("sys", names)
            stmt = f"request.addfinalizer(lambda: {sys_ref}.modules.pop({module!r}, None))"
            out.append(([*imports, stmt], ["request"]))
    elif root.kind == "env" and root.var:
        if p.present and p.literal is not None:
            out.append(([f"monkeypatch.setenv({root.var!r}, {p.literal})"], ["monkeypatch"]))
        elif not p.present:
            # set then delete: monkeypatch undoes both, leaving the variable unset
            out.append(
                (
                    [f"monkeypatch.setenv({root.var!r}, '')", f"monkeypatch.delenv({root.var!r})"],
                    ["monkeypatch"],
                )
            )
    elif root.kind == "cwd":
        out.append((["import os", "monkeypatch.chdir(os.getcwd())"], ["monkeypatch"]))
    elif root.kind == "syspath":
        out.append(
            (["import sys", "monkeypatch.setattr(sys, 'path', list(sys.path))"], ["monkeypatch"])
        )
    elif root.kind == "file" and root.path:
        expr, imports = _file_expr(root.path)
        fixtures = ["request"]
        if not p.present and root.name.endswith("/"):
            out.append(
                (
                    [
                        *imports,
                        "import shutil",
                        f"request.addfinalizer(lambda: shutil.rmtree({expr}, ignore_errors=True))",
                    ],
                    fixtures,
                )
            )
        elif not p.present:
            out.append(
                (
                    [*imports, f"request.addfinalizer(lambda: {expr}.unlink(missing_ok=True))"],
                    fixtures,
                )
            )
        else:
            out.append(
                (
                    [
                        *imports,
                        f"saved_bytes = {expr}.read_bytes()",
                        f"request.addfinalizer(lambda: {expr}.write_bytes(saved_bytes))",
                    ],
                    fixtures,
                )
            )
    return out


def insertion(test: str, stmts: Sequence[str], fixtures: Sequence[str]) -> Insertion:
    """An :class:`Insertion` with imports first (duplicate imports dropped), fixtures in
    order. Other statements keep their order and repeats: a cleaner that unsubscribes,
    subscribes and unsubscribes again ends clean only with the last call."""
    imports = [s for s in stmts if s.startswith(("import ", "from "))]
    rest = [s for s in stmts if s not in imports]
    fx = tuple(f for f in FIXTURE_PARAMS if f in fixtures) + tuple(
        f for f in dict.fromkeys(fixtures) if f not in FIXTURE_PARAMS
    )
    return Insertion(test, (*dict.fromkeys(imports), *rest), fx)


def read_sources(project: Path, files: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel in files:
        try:
            out[rel] = (project / rel).read_text(encoding="utf-8")
        except OSError:
            out[rel] = ""
    return out
