"""Which tests a patch changes the code of, read from the files before and after.

Verification asks a test that failed before a patch to fail the same way after it only
when the patch touched what that test runs (its own function, or anything shared: a
fixture, a ``setUp``, module code other than imports). A test the patch did not touch
may fail another way because the state it now starts from is the clean one (a polluter
that no longer empties a list lets a broken test get further); that is the point of the
patch, not a fault of it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Optional

Changes = Mapping[str, tuple[str, str]]


@dataclass
class ChangedCode:
    """The test functions a patch changed (``file::Class::func``), and whether it changed
    anything else that tests share."""

    tests: set[str] = field(default_factory=set)
    shared: bool = False

    def touches(self, test_id: str) -> bool:
        """Whether ``test_id`` runs code the patch changed."""
        return self.shared or test_id.split("[", 1)[0] in self.tests


def _parts(source: str) -> Optional[dict[str, str]]:
    """Each function (``Class::func`` for methods) and the module's other statements
    (key ``""``, imports left out), as text; None when the file does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    out: dict[str, str] = {}
    other: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[prefix + node.name] = ast.dump(node)
            elif isinstance(node, ast.ClassDef):
                decorators = [ast.dump(d) for d in node.decorator_list]
                out[f"{prefix}{node.name}::"] = repr([decorators, ast.dump(node.bases[0])
                                                      if node.bases else ""])  # fmt: skip
                visit(node.body, f"{prefix}{node.name}::")
            elif not isinstance(node, (ast.Import, ast.ImportFrom)):
                other.append(ast.dump(node))

    visit(tree.body, "")
    out[""] = repr(other)
    return out


def changed_code(changes: Changes) -> ChangedCode:
    """The tests whose own function ``changes`` alter; ``shared`` when it alters anything
    else (a fixture or helper function, a class's other methods, module statements other
    than imports, a file that does not parse, a conftest or non-test file)."""
    out = ChangedCode()
    for path, (old, new) in changes.items():
        name = path.rsplit("/", 1)[-1]
        if not (name.startswith("test") and name.endswith(".py")):
            out.shared = True  # conftest.py, the project's code: every test may run it
            continue
        before, after = _parts(old), _parts(new)
        if before is None or after is None:
            out.shared = True
            continue
        for key in before.keys() | after.keys():
            if before.get(key) == after.get(key):
                continue
            last = key.rsplit("::", 1)[-1]
            if key and last.startswith("test"):
                out.tests.add(f"{path}::{key}")
            else:
                out.shared = True
    return out
