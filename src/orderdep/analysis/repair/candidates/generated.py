"""ODRepair's Generator as candidates (003 §3.2): reset-method calls for polluted roots.

The reset-method finder (:mod:`.resets`) and literal miner (:mod:`.reset_calls`) propose call sequences for a
root; each is screened right before the OD test in its failing order(s), minimised by
delta debugging, and offered as an insertion into the OD test.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.candidates.reset_calls import generate
from orderdep.analysis.repair.candidates.sources import FunctionSource, read_function
from orderdep.analysis.repair.locate.module_names import ModuleNames, attribute_reference
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.screening import Screen
from orderdep.analysis.repair.verify.verify import Target
from orderdep.analysis.repair.write.patches import insertion
from orderdep.core.ddmin import ddmin
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

MAX_GENERATED_PER_ROOT = 2


def generated_candidates(
    project: Path,
    screen: Screen,
    progress: Callable[[str], None],
    finding: ODFinding,
    target: Target,
    victim: FunctionSource,
    roots: list[RootInfo],
    notes: list[str],
) -> list[Candidate]:
    """Screened, minimised reset-method calls for each of ``roots`` (notes say why not)."""
    out: list[Candidate] = []
    context = [victim.source]
    for p in finding.polluters + [m for g in finding.polluter_groups for m in g]:
        try:
            context.append(read_function(project, p).text)
        except UsageError:
            pass
    names = ModuleNames.parse(victim.source, victim.module)
    for root in roots:
        fixture = root.fixture if root.kind == "fixture" else None
        module_source = _source_of(project, root)
        if module_source is None:
            continue
        gen = generate(root, module_source, context)
        if not gen.methods:
            notes.append(f"generated: no reset-method found for {root.name}")
            continue
        found = 0
        fixtures = [fixture] if fixture else []
        for seq in gen.sequences:
            head = seq.method.path[0]
            imports: list[str] = []
            if fixture:  # methods of the fixture's value, called on it
                expr = f"{fixture}.{head}"
            else:
                expr, imports = _method_reference(root, head, names, victim.module)
            calls = [c.replace(f"{{m}}.{head}", expr) for c in seq.calls]
            progress(f"trying {calls[0]}" + (" ..." if len(calls) > 1 else ""))

            def works(
                sub: list[str], imports: list[str] = imports, fixtures: list[str] = fixtures
            ) -> bool:
                code = "\n".join([*imports, *sub])
                return screen(target, code, victim.module, fixtures)

            if not works(calls):
                continue
            kept = ddmin(calls, works) if len(calls) > 1 else calls
            desc = f"calls reset-method {seq.method.describe()}"
            if fixture:
                desc += f" on the value of fixture {fixture}"
            ins = insertion(finding.test, [*imports, *kept], fixtures)
            out.append(Candidate("generated", desc, [ins]))
            found += 1
            if found >= MAX_GENERATED_PER_ROOT:
                break
        if not found:
            notes.append(
                f"generated: none of {len(gen.sequences)} call sequence(s) of "
                f"{len(gen.methods)} reset-method(s) resets {root.name}"
            )
    return out


def _source_of(project: Path, root: RootInfo) -> Optional[str]:
    """The source a root's reset-methods are looked for in: its module's, its fixture
    value's class's, or for an attribute root its holder's class's."""
    fixture = root.fixture if root.kind == "fixture" else None
    source_file = (
        root.value_file if fixture else root.owner_file if root.owner_class else root.module_file
    )
    if (root.module is None and fixture is None) or not source_file:
        return None
    try:
        return (project / source_file).read_text(encoding="utf-8")
    except OSError:
        return None


def _method_reference(
    root: RootInfo, head: str, names: ModuleNames, test_module: Optional[str]
) -> tuple[str, list[str]]:
    """How the OD test's module names reset-method ``head`` of ``root`` (a module
    function, or a method of the object holding an attribute root), and imports."""
    assert root.module is not None
    path = [*root.attrs[:-1], head] if root.owner_class else [head]
    if root.module == test_module:
        return ".".join(path), []
    return attribute_reference(root.module, path, names, root.shadowed)


def reset_statements(
    project: Path, victim: FunctionSource, roots: Sequence[RootInfo]
) -> list[tuple[list[str], str]]:
    """Unscreened calls of the reset-methods without parameters of ``roots`` (statements
    with their imports, and what they call): a brittle's state-setters replayed after
    such a reset set its state up from scratch in any order."""
    names = ModuleNames.parse(victim.source, victim.module)
    out: dict[str, tuple[list[str], str]] = {}
    for root in roots:
        if root.kind == "fixture":
            continue
        source = _source_of(project, root)
        if source is None:
            continue
        for seq in generate(root, source, []).sequences:
            if len(seq.calls) != 1 or any(p.required for p in seq.method.params):
                continue
            head = seq.method.path[0]
            expr, imports = _method_reference(root, head, names, victim.module)
            call = seq.calls[0].replace(f"{{m}}.{head}", expr)
            out.setdefault(call, ([*imports, call], seq.method.describe()))
    return list(out.values())[:MAX_GENERATED_PER_ROOT]
