"""How code inserted into a test function names modules and their attributes.

:func:`module_reference` decides how the inserted code names a module: through an import
the test module already has, else a local import with a name the module does not use.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


@dataclass
class ModuleNames:
    """What a test module binds at top level (from its source)."""

    imports: dict[str, str] = field(default_factory=dict)  # module -> expression naming it
    taken: set[str] = field(default_factory=set)  # every name the source uses or binds
    import_lines: dict[str, str] = field(default_factory=dict)  # bound name -> import stmt
    star_imports: set[str] = field(default_factory=set)  # modules imported with ``*``
    # names bound only by imports inside functions (an earlier patch's local import):
    # name -> the modules bound to it there
    local_imports: dict[str, set[str]] = field(default_factory=dict)

    def free_for(self, alias: str, module: str) -> bool:
        """Whether code inserted into a function may bind ``alias`` to ``module``: the
        source does not use the name, or only binds it to that module in other functions'
        imports (so the victims of one state get the same block, which sharing can
        hoist)."""
        return alias not in self.taken or self.local_imports.get(alias) == {module}

    @classmethod
    def parse(cls, source: str, module_name: Optional[str] = None) -> ModuleNames:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return cls()
        out = cls()
        package = (module_name or "").rpartition(".")[0]
        out.local_imports = _local_imports(tree, package)
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
                base = imported_from(node, package)
                for alias in node.names:
                    if alias.name == "*":
                        out.star_imports.add(base)
                        continue
                    bound = alias.asname or alias.name
                    out.import_lines[bound] = ast.unparse(
                        ast.ImportFrom(node.module, [alias], node.level)
                    )
                    out.imports.setdefault(f"{base}.{alias.name}".strip("."), bound)
        return out


def _local_imports(tree: ast.Module, package: str) -> dict[str, set[str]]:
    """Names bound by imports inside functions and by nothing else: name -> modules."""
    local: dict[str, set[str]] = {}
    other: set[str] = set()
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
            for alias in node.names:
                if isinstance(node, ast.ImportFrom):
                    full = f"{imported_from(node, package)}.{alias.name}".strip(".")
                else:
                    full = alias.name if alias.asname else alias.name.split(".")[0]
                local.setdefault(alias.asname or alias.name.split(".")[0], set()).add(full)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            other |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(node.name)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
    return {name: mods for name, mods in local.items() if name not in other}


def imported_from(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module ``from ... import`` reads, in ``package``
    (``from ..io import x`` in ``app.sub`` reads ``app.io``)."""
    base = node.module or ""
    if node.level:
        pkg = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{pkg}.{base}".strip(".") if base else pkg
    return base


def through_shadowed(name: str, shadowed: Collection[str]) -> bool:
    """Whether dotted ``name`` passes through a module its package's attribute does not
    name (``from .problem import *`` in a package binds its function ``problem`` over
    the submodule ``problem``): ``pkg.problem`` is then the function, not the module."""
    return any(name == m or name.startswith(m + ".") for m in shadowed)


def module_reference(
    module: str, names: ModuleNames, shadowed: Collection[str] = ()
) -> tuple[str, list[str]]:
    """(expression naming ``module`` inside a test function, import statements it needs).

    ``shadowed``: modules whose package binds another object under their name (the debug
    probe reports them); such a module is reached through ``importlib.import_module``.
    """
    if through_shadowed(module, shadowed):
        return _imported_module(module, names)
    if module in names.imports:
        return names.imports[module], []
    head, _, last = module.rpartition(".")
    for alias in (last, f"{last}_module", f"_{last}"):
        if names.free_for(alias, module) and alias.isidentifier():
            if head:
                return alias, [
                    f"from {head} import {last}" + (f" as {alias}" if alias != last else "")
                ]
            return alias, [f"import {module}" + (f" as {alias}" if alias != module else "")]
    alias = f"orderdep_{module.replace('.', '_')}"
    return alias, [f"import {module} as {alias}"]


def _imported_module(module: str, names: ModuleNames) -> tuple[str, list[str]]:
    """``module`` bound to a fresh local name by ``importlib.import_module`` (the module
    object from ``sys.modules``, whatever its package binds under its name)."""
    importlib_ref, imports = module_reference("importlib", names)
    last = module.rpartition(".")[2]
    alias = next(
        a
        for a in (f"{last}_module", f"_{last}_module", f"orderdep_{module.replace('.', '_')}")
        if a not in names.taken and a.isidentifier()
    )
    return alias, [*imports, f"{alias} = {importlib_ref}.import_module({module!r})"]


def module_name_for(project: Path, rel_file: str) -> str:
    """The name pytest's default (prepend) import mode gives a test file."""
    path = project / rel_file
    parts = [path.stem]
    parent = path.parent
    while (parent / "__init__.py").is_file() and parent != project.parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


def attribute_reference(
    module: str, attrs: Sequence[str], names: ModuleNames, shadowed: Collection[str] = ()
) -> tuple[str, list[str]]:
    """Expression for ``module.attrs...`` inside a test function, and the imports it needs.

    Prefers what the test module already imports (``from app.meter import Meter`` makes
    ``app.meter.Meter.hits`` simply ``Meter.hits``), except through a ``shadowed`` module
    (see :func:`module_reference`): the test's name for it may be the object that hides it.
    """
    for i in range(len(attrs), -1, -1):
        key = ".".join([module, *attrs[:i]])
        if key in names.imports and not through_shadowed(key, shadowed):
            return ".".join([names.imports[key], *attrs[i:]]), []
    if module in names.star_imports and attrs and not attrs[0].startswith("_"):
        # ``from pykit.nodes import *`` binds the public names: no import of the module
        # (its package may even bind another object under the submodule's name)
        return ".".join(attrs), []
    expr, imports = module_reference(module, names, shadowed)
    return ".".join([expr, *attrs]), imports
