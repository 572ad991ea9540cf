"""ODRepair's Generator as candidates (003 §3.2): reset-method calls for polluted roots.

The reset-method finder (:mod:`.resets`) and literal miner (:mod:`.reset_calls`) propose call sequences for a
root; each is screened right before the OD test in its failing order(s), minimised by
delta debugging, and offered as an insertion into the OD test.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional

from orderdep.analysis.repair.candidates import Candidate
from orderdep.analysis.repair.debugger import RootInfo
from orderdep.analysis.repair.module_names import ModuleNames, attribute_reference
from orderdep.analysis.repair.patches import insertion
from orderdep.analysis.repair.reset_calls import generate
from orderdep.analysis.repair.sources import FunctionSource, read_function
from orderdep.analysis.repair.verify import Target
from orderdep.core.ddmin import ddmin
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

MAX_GENERATED_PER_ROOT = 2

# screen(target, code, namespace, fixtures): whether code makes the OD test pass there
Screen = Callable[[Target, str, Optional[str], Sequence[str]], bool]


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
        source_file = root.value_file if fixture else root.module_file
        if (root.module is None and fixture is None) or not source_file:
            continue
        try:
            module_source = (project / source_file).read_text(encoding="utf-8")
        except OSError:
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
            elif root.module == victim.module:
                expr = head
            else:
                assert root.module is not None
                expr, imports = attribute_reference(root.module, [head], names, root.shadowed)
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
