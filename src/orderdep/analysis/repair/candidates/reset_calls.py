"""ODRepair's Generator inputs (003 §3.2.2): literals and call sequences for reset-methods.

**Literals** are mined from the polluter(s), the OD test's module and the root's
module, plus the keys and elements the failing value has in excess: the values a
polluter used are likely the ones a reset-method needs (``shutdown("test_job")``).

**Call sequences** replace Randoop: for each reset-method
(:func:`~orderdep.analysis.repair.candidates.resets.find_reset_methods`), calls with each fitting
literal and one sequence with all of them; the patcher screens them and
:func:`~orderdep.core.ddmin.ddmin` keeps only the calls that matter (§3.2.3).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orderdep.analysis.repair.candidates.resets import (
    Param,
    ResetMethod,
    find_owner_methods,
    find_reset_methods,
    find_value_methods,
)
from orderdep.analysis.repair.locate.root_info import RootInfo

MAX_LITERALS = 8
MAX_CALLS = 12
MAX_SEQUENCES = 40


@dataclass(frozen=True)
class CallSequence:
    """Calls (source text relative to the module's expression ``{m}``) to try together."""

    method: ResetMethod
    calls: tuple[str, ...]


# -- literals --------------------------------------------------------------------------
def mine_literals(sources: Iterable[str]) -> list[Any]:
    """String and number constants of ``sources`` (code snippets), first seen first."""
    out: dict[str, Any] = {}
    for src in sources:
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and id(node) not in docstrings:
                v = node.value
                if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                    continue
                if isinstance(v, str) and (len(v) > 80 or "\n" in v):
                    continue
                out.setdefault(repr(v), v)
    return list(out.values())


def excess_literals(root: RootInfo) -> list[Any]:
    """Keys/elements the failing value has and the passing value lacks (plain literals)."""
    return _excess(root.failing.desc, root.passing.desc, 0)


def _excess(f: Any, p: Any, depth: int) -> list[Any]:
    """Keys, elements or trailing items of description ``f`` that ``p`` lacks; inside
    objects (a fixture's value), those of the attributes that differ."""
    if not (isinstance(f, list) and isinstance(p, list) and len(f) == 3 and f[0] == p[0]):
        return []
    if f[0] == "dict":
        keys = [k for k, _ in f[2] if k not in {k2 for k2, _ in p[2]}]
    elif f[0] == "set":
        keys = [k for k in f[2] if k not in p[2]]
    elif f[0] == "seq" and len(f[2]) > len(p[2]) and f[2][: len(p[2])] == p[2]:
        keys = [x[2] for x in f[2][len(p[2]) :] if isinstance(x, list) and x[:1] == ["atom"]]
    elif f[0] == "obj" and depth == 0:
        fa, pa = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
        return [x for k in fa if k in pa and fa[k] != pa[k] for x in _excess(fa[k], pa[k], 1)]
    else:
        return []
    out = []
    for text in keys:
        try:
            out.append(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            continue
    return out


def _fits(param: Param, value: Any) -> bool:
    ann = param.annotation
    if not ann:
        return True
    if ann in ("str", "Optional[str]"):
        return isinstance(value, str)
    if ann in ("int", "Optional[int]"):
        return isinstance(value, int)
    if ann in ("float",):
        return isinstance(value, (int, float))
    return True


def call_sequences(
    methods: Sequence[ResetMethod], literals: Sequence[Any], *, limit: int = MAX_SEQUENCES
) -> list[CallSequence]:
    """Candidate call sequences, ``{m}`` standing for the module (§3.2.2, in place of Randoop).

    A method without required parameters is called once; otherwise once per fitting
    combination of literals (the first ``MAX_LITERALS`` of each parameter), and once with
    all those calls in a row (which ddmin then shrinks).
    """
    out: list[CallSequence] = []
    for m in methods:
        required = [p for p in m.params if p.required]
        head = ".".join(m.path[:1]) + ("()" if m.via_call else "")
        target = ".".join([f"{{m}}.{head}", *m.path[1:]])
        if not required:
            out.append(CallSequence(m, (f"{target}()",)))
            continue
        pools = [[v for v in literals if _fits(p, v)][:MAX_LITERALS] for p in required]
        if any(not pool for pool in pools):
            continue
        calls = [
            f"{target}({', '.join(repr(v) for v in combo)})"
            for combo in itertools.islice(itertools.product(*pools), MAX_CALLS)
        ]
        if len(calls) > 1:
            out.append(CallSequence(m, tuple(calls)))
        out.extend(CallSequence(m, (c,)) for c in calls)
    return out[:limit]


@dataclass
class Generated:
    """Everything the Generator derived for one root (for reports and tests)."""

    root: str
    methods: list[ResetMethod] = field(default_factory=list)
    literals: list[Any] = field(default_factory=list)
    sequences: list[CallSequence] = field(default_factory=list)


def generate(root: RootInfo, module_source: str, context_sources: Sequence[str]) -> Generated:
    """Reset-methods, literals and call sequences for ``root`` (§3.2.1-3.2.2).

    ``module_source`` is the root's module, or for a fixture root the module of its
    value's class (whose methods are called on the fixture, ``{m}`` standing for it), or
    for an attribute root the module of its holder's class (called on the holder).
    """
    if root.kind == "fixture" and root.value_class and root.value_module:
        methods = find_value_methods(module_source, root.value_class, root.value_module)
    elif root.owner_class and root.owner_module and root.attrs:
        methods = find_owner_methods(
            module_source, root.owner_class, root.owner_module, root.attrs[-1]
        )
    else:
        methods = find_reset_methods(module_source, root)
    literals: dict[str, Any] = {}
    for v in [*excess_literals(root), *mine_literals([*context_sources, module_source])]:
        literals.setdefault(repr(v), v)
    lits = list(literals.values())
    return Generated(root.name, methods, lits, call_sequences(methods, lits))
