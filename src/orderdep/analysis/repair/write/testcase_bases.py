"""Which base classes named like ``unittest.TestCase`` are not one.

A test class whose base is named ``...TestCase`` is taken for a ``unittest.TestCase``
(its methods take no fixtures, so a patch's ``monkeypatch`` calls become
``self.addCleanup``). Projects also name plain pytest bases so: pint's
``class QuantityTestCase:`` makes a registry in ``setup_class``, and ``self.addCleanup``
does not exist on its tests. A base defined in the project (in the test file itself, or
in a project module the file imports it from) is followed through its own bases: it is
a TestCase only when one of them is, or names a base outside the project.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

TESTCASE_SUFFIXES = ("TestCase", "TestBase")
MAX_DEPTH = 4


def _base_names(node: ast.ClassDef) -> list[str]:
    out = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            out.append(base.id)
        elif isinstance(base, ast.Attribute):
            out.append(ast.unparse(base))
    return out


class _Module:
    """One parsed project module: its classes and the names it imports from where."""

    def __init__(self, path: Path, package: str) -> None:
        self.path, self.package = path, package
        tree = ast.parse(path.read_text(encoding="utf-8"))
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self.imported: dict[str, tuple[str, str]] = {}  # name -> (module, its name there)
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    keep = len(parts) - (node.level - 1)
                    if keep < 0:
                        continue
                    module = ".".join([*parts[:keep], *([module] if module else [])])
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (module, alias.name)


def _package_of(rel: str) -> str:
    return ".".join(Path(rel).with_suffix("").parts[:-1])


def _find(project: Path, module: str) -> Optional[tuple[Path, str]]:
    """The project file of ``module`` (a package's ``__init__.py``; under ``src/`` too),
    and the package its relative imports start from."""
    parts = module.split(".") if module else []
    for root in (project, project / "src"):
        base = root.joinpath(*parts) if parts else root
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), ".".join(parts[:-1])
        if (base / "__init__.py").is_file():
            return base / "__init__.py", ".".join(parts)
    return None


class _Resolver:
    def __init__(self, project: Path) -> None:
        self.project = project
        self.modules: dict[Path, Optional[_Module]] = {}

    def module(self, path: Path, package: str) -> Optional[_Module]:
        if path not in self.modules:
            try:
                self.modules[path] = _Module(path, package)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                self.modules[path] = None
        return self.modules[path]

    def is_testcase(self, where: _Module, name: str, depth: int = 0) -> bool:
        """Whether base ``name`` as ``where`` sees it is (or may be) a TestCase."""
        if depth > MAX_DEPTH or "." in name:
            return True  # unittest.TestCase, django.test.TestCase, too deep: as named
        node = where.classes.get(name)
        if node is not None:
            return any(self.is_testcase(where, b, depth + 1) for b in _base_names(node)
                       if b != "object")  # fmt: skip
        source = where.imported.get(name)
        if source is None:
            return name.endswith(TESTCASE_SUFFIXES)  # a builtin or a star import: as named
        found = _find(self.project, source[0])
        other = self.module(*found) if found is not None else None
        if other is None or other is where:
            return True  # from outside the project (unittest, a library): as named
        return self.is_testcase(other, source[1], depth + 1)


def plain_bases(project: Path, rel: str) -> frozenset[str]:
    """The base names of ``rel``'s classes that look like TestCases and are not one."""
    resolver = _Resolver(project)
    path = project / rel
    module = resolver.module(path, _package_of(rel))
    if module is None:
        return frozenset()
    named = {
        b
        for node in module.classes.values()
        for b in _base_names(node)
        if b.endswith(TESTCASE_SUFFIXES) and "." not in b
    }
    return frozenset(b for b in named if not resolver.is_testcase(module, b))
