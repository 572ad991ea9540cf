"""A fixture orderdep adds, written the way a maintainer writes one: its clean-up after a
``yield`` rather than in ``request.addfinalizer(lambda ...)`` one-liners.

Candidates are statements that work anywhere in a test (:mod:`..candidates`), so what
puts a state back is registered with ``request.addfinalizer``; in a test that is the
idiom. In a fixture of its own, ``lambda saved=saved: (X.clear(), X.update(saved))``
is a 100-character line where two lines after ``yield`` say the same.
:func:`yield_style` rewrites the statements so, when that keeps their meaning: each
finalizer a top-level statement, a ``lambda`` whose parameters only capture names
(``saved=saved``) bound once in the fixture, or a callable called after the ``yield``;
the finalizers run in the reverse order of their registration, as pytest runs them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Optional

import libcst as cst
import libcst.matchers as m

from orderdep.analysis.repair.write.statements import parse_statements

_FINALIZER = m.Call(
    func=m.Attribute(value=m.Name("request"), attr=m.Name("addfinalizer")),
    args=[m.Arg(keyword=None)],
)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _teardown(arg: cst.BaseExpression) -> Optional[tuple[list[str], list[str]]]:
    """The statements after ``yield`` that do what the finalizer ``arg`` does, and the
    names its lambda captured (None when it cannot be said so)."""
    if isinstance(arg, (cst.Name, cst.Attribute)):  # a callable named: called after it
        return [f"{_code(arg)}()"], []
    if not isinstance(arg, cst.Lambda):
        return None  # a callable built at registration (a partial): its arguments' values then
    captured = []
    params = arg.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None
    if params.posonly_params or params.kwonly_params:
        return None
    for param in params.params:
        default = param.default
        if not (isinstance(default, cst.Name) and default.value == param.name.value):
            return None  # a default computed at registration: not a captured name
        captured.append(param.name.value)
    body = arg.body
    parts = list(body.elements) if isinstance(body, cst.Tuple) else None
    if parts is not None:
        return [_code(e.value) for e in parts], captured
    return [_code(body)], captured


def _assigned(node: cst.BaseStatement) -> list[str]:
    """Names a statement binds (``x = ...``, ``x: T = ...``, ``x += ...``)."""
    out: list[str] = []
    for found in m.findall(node, m.AssignTarget(target=m.Name())):
        assert isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name)
        out.append(found.target.value)
    for kind in (m.AnnAssign(target=m.Name()), m.AugAssign(target=m.Name())):
        for found in m.findall(node, kind):
            target = getattr(found, "target", None)
            if isinstance(target, cst.Name):
                out.append(target.value)
    return out


def yield_style(
    statements: Sequence[str], fixtures: Sequence[str]
) -> Optional[tuple[list[str], list[str]]]:
    """``statements`` of a new fixture with every ``request.addfinalizer(...)`` made
    statements after a ``yield``, and the fixtures it requests (``request`` left out
    when nothing else uses it). None when there is no finalizer, or one cannot be moved
    without changing what runs (see the module doc)."""
    nodes = parse_statements(statements)
    if len(nodes) != len(statements):
        return None  # a text of several statements: keep them as they are
    setup: list[str] = []
    teardowns: list[list[str]] = []
    captured: list[str] = []
    bound: Counter[str] = Counter()
    for text, node in zip(statements, nodes):
        bound.update(_assigned(node))
        if m.findall(node, m.Return() | m.Yield()):
            return None
        call = None
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
            expr = node.body[0]
            if isinstance(expr, cst.Expr) and m.matches(expr.value, _FINALIZER):
                call = expr.value
        if call is None:
            if m.findall(node, _FINALIZER):
                return None  # a finalizer inside a block: it may not run at all
            setup.append(text)
            continue
        assert isinstance(call, cst.Call)
        got = _teardown(call.args[0].value)
        if got is None:
            return None
        teardowns.append(got[0])
        captured += got[1]
    if not teardowns:
        return None
    if any(bound[name] != 1 for name in captured):
        return None  # a name bound twice: the lambda kept the value of its time
    after = [line for block in reversed(teardowns) for line in block]
    rest = [*setup, *after]
    uses_request = any(m.findall(n, m.Name("request")) for n in parse_statements(rest))
    asked = [f for f in fixtures if f != "request" or uses_request]
    return [*setup, "yield", *after], asked


def written_already(
    body: Sequence[cst.BaseStatement], statements: Sequence[str], fixtures: Sequence[str]
) -> bool:
    """Whether a fixture's ``body`` starts with ``statements`` as :func:`yield_style`
    writes them (an insertion made once is not made twice)."""
    moved = yield_style(statements, fixtures)
    if moved is None:
        return False

    def bare(node: cst.BaseStatement) -> str:
        return _code(node.with_changes(leading_lines=[])).strip()

    want = [bare(n) for n in parse_statements(moved[0])]
    return [bare(n) for n in body[: len(want)]] == want


__all__ = ["written_already", "yield_style"]
