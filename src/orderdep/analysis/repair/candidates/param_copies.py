"""A polluter that changes the very objects its parametrize arguments are.

``@pytest.mark.parametrize("atts", ARGS)`` hands every case the object in the list, not
a copy: a test that fills the dict it was given (``Node(atts)`` keeps it and sets keys)
changes it for every later test taking its arguments from the same list. Collection
bound those objects into each test item, so putting the list back explains nothing;
the fix a maintainer writes is the polluter working on its own copies:

    atts = copy.deepcopy(atts)

at the start of the polluter, for each argument its ``parametrize`` marks name. The
candidate is offered for every parametrized polluter of a victim; verification decides.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, short_name
from orderdep.analysis.repair.candidates.sources import read_function
from orderdep.analysis.repair.write.patches import Insertion, function_path
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError


def parametrize_names(module_source: str, test: str) -> list[str]:
    """The argument names the ``parametrize`` marks of test ``test``'s function (and of
    its classes) name, from its module's source."""
    try:
        body: list[ast.stmt] = ast.parse(module_source).body
    except SyntaxError:
        return []
    _, classes, name = function_path(test)
    decorators: list[ast.expr] = []
    for cls in classes:
        owner = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not owner:
            return []
        decorators += owner[-1].decorator_list
        body = owner[-1].body
    fns = [
        n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    if not fns:
        return []
    module = ast.parse(module_source)
    out: list[str] = []
    for deco in [*decorators, *fns[-1].decorator_list]:
        if not (isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("parametrize")):
            continue
        names = deco.args[0] if deco.args else None
        found: list[str] = []
        if isinstance(names, ast.Constant) and isinstance(names.value, str):
            found = [n.strip() for n in names.value.split(",") if n.strip()]
        elif isinstance(names, (ast.Tuple, ast.List)):
            found = [
                e.value
                for e in names.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
        values = _literal_values(deco.args[1], module) if len(deco.args) > 1 else None
        out += [n for i, n in enumerate(found) if not _immutable_at(values, i, len(found))]
    return list(dict.fromkeys(out))


IMMUTABLE = (str, bytes, int, float, complex, bool, type(None))


def _literal_values(node: ast.expr, module: ast.Module) -> Optional[list[Any]]:
    """The argument values of a ``parametrize`` mark when they are a literal, or a
    module-level name bound once to one; None when they cannot be read."""
    if isinstance(node, ast.Name):
        bound = [
            s.value
            for s in module.body
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == node.id for t in s.targets)
        ]
        if len(bound) != 1:
            return None
        node = bound[0]
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return list(value) if isinstance(value, (list, tuple)) else None


def _frozen(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_frozen(v) for v in value)
    return isinstance(value, IMMUTABLE)


def _immutable_at(values: Optional[list[Any]], index: int, width: int) -> bool:
    """Whether every value of argument ``index`` (of ``width``) is immutable: a copy of
    it changes nothing. Unknown values are not."""
    if values is None:
        return False
    if width == 1:
        return all(_frozen(v) for v in values)
    rows = [v for v in values if isinstance(v, (tuple, list)) and len(v) == width]
    return len(rows) == len(values) and all(_frozen(r[index]) for r in rows)


def _polluters(finding: ODFinding) -> list[str]:
    every = [*finding.polluters, *(m for g in finding.polluter_groups for m in g)]
    if not every and len(finding.failing_order) == 2:
        every = finding.failing_order[:1]
    return [p for p in dict.fromkeys(every) if "[" in p]  # parametrized ones


def param_copy_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """Each parametrized polluter working on deep copies of its parametrize arguments
    (one candidate with all of them; see the module doc)."""
    insertions: list[Insertion] = []
    seen: set[str] = set()
    victim = short_name(finding.test)
    for polluter in _polluters(finding):
        try:
            source = read_function(project, polluter)
        except UsageError:
            continue
        names = [n for n in parametrize_names(source.source, polluter) if n in source.params]
        function = polluter.split("[", 1)[0]
        if not names or function in seen:
            continue
        seen.add(function)
        statements: Sequence[str] = ["import copy", *(f"{n} = copy.deepcopy({n})" for n in names)]
        comment = (
            f"Work on copies of the parametrize arguments: the objects are shared with "
            f"other tests ({victim} needs them unchanged)."
        )
        insertions.append(Insertion(polluter, tuple(statements), (), None, comment))
    if not insertions:
        return []
    what = ", ".join(short_name(i.test) for i in insertions)
    return [
        Candidate(
            "polluter", f"makes {what} work on copies of its parametrize arguments", insertions
        )
    ]


__all__ = ["param_copy_candidates", "parametrize_names"]
