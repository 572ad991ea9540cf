"""A set-up that overrides its base class's without calling it.

A subclass whose ``setUpClass`` (``setUp``, ``setup_class``, ``setup_method``) does not
call ``super()``'s leaves undone what the base class's set-up does for every class of
tests. Its tests then pass only after a test of the base class ran that set-up, on the
class they share attributes with: brittles whose state-setters are the base class's tests.
The fix is one call, first thing in the override.
"""

from __future__ import annotations

import ast
from pathlib import Path

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.write.inherited import base_classes, class_at, method_of
from orderdep.analysis.repair.write.patches import Insertion, function_path
from orderdep.core.report import ODFinding

#: The set-ups whose overrides are checked, the class-wide ones first.
SET_UPS = ("setUpClass", "setup_class", "setUp", "setup_method")


def calls_base(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``fn`` calls ``name`` of a base class: ``super().name(...)`` or
    ``Base.name(...)`` anywhere in its body."""
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == name
            and isinstance(node.func.value, (ast.Call, ast.Name))
        ):
            inner = node.func.value
            if isinstance(inner, ast.Name) or (
                isinstance(inner.func, ast.Name) and inner.func.id == "super"
            ):
                return True
    return False


def base_set_up_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """For a brittle in a class whose set-up overrides one a base class of the same file
    defines, without calling it: the call, first thing in the override (see the module
    doc). None when the file cannot be read or nothing is overridden that way."""
    rel, classes, _ = function_path(finding.test)
    if not classes:
        return []
    try:
        tree = ast.parse((project / rel).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    node = class_at(tree.body, classes)
    if node is None:
        return []
    bases = base_classes(tree, node)
    out: list[Candidate] = []
    for name in SET_UPS:
        fn = method_of(node, name)
        if fn is None or calls_base(fn, name):
            continue
        base = next((b for b in bases if method_of(b, name) is not None), None)
        if base is None:
            continue
        args = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]][1:]
        call = f"super().{name}({', '.join(args)})"
        why = f"calls {base.name}.{name} from the {name} of {classes[-1]}, which overrides it"
        said = f"Run the base class's {name} first: this one overrides it."
        ins = Insertion(finding.test, (call,), method=name, comment=said)
        out.append(Candidate("fixture", why, [ins], at_set_up=True))
    return out


__all__ = ["SET_UPS", "base_set_up_candidates", "calls_base"]
