"""The lines ``orderdep fix`` prints for each OD test it repaired or could not."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from orderdep.analysis.repair.fix_result import FixResult
from orderdep.shells.commands.debug_cmds import root_lines
from orderdep.shells.options import engine_flags
from orderdep.shells.patch_files import apply_commands


def fix_lines(
    result: FixResult,
    project: Path,
    patch: Optional[Path],
    params: dict[str, Any],
    report: Optional[Path],
    applied: Sequence[str],
    polluters: Sequence[str] = (),
    sources: Optional[Path] = None,
) -> list[str]:
    """What ``fix`` prints for one OD test: its patch and how to apply it (or where it was
    applied), or why none was verified, with the roots a person writing the fix should
    look at. ``sources``: where the patch's paths start (pytest's rootdir, when it is a
    directory inside the project)."""
    fix = result.fix
    if not result.reproduced:
        return [
            f"nothing to fix for {result.test} ({result.kind}):",
            *(f"  {n}" for n in result.notes),
        ]
    if fix is None:
        lines = [f"no verified fix for {result.test} ({result.kind}):"]
        lines += [f"  {n}" for n in result.notes] or ["  no candidate patch"]
        dbg = result.debug
        if dbg is not None and dbg.culprits:  # where a person writing the fix should look
            label = "polluted" if result.kind == "victim" else "needed"
            roots = [line for r in dbg.culprits for line in root_lines(r)]
            lines.append(f"  {label} root(s): {'; '.join(roots)}")
        elif dbg is not None and dbg.differing:
            shown = ", ".join(r.name for r in dbg.differing[:5])
            more = f" and {len(dbg.differing) - 5} more" if len(dbg.differing) > 5 else ""
            lines.append(f"  roots that differ (none alone explains it): {shown}{more}")
        return lines
    how = fix.verification.summary()
    if result.batched and result.notes:  # verified ahead, with other tests'
        how += f" ({result.notes[0]})"
    lines = [
        f"fix for {result.test} ({result.kind}): {fix.strategy}, {fix.size} changed "
        f"line(s): {fix.description}; {how}",
        fix.diff.rstrip("\n"),
    ]
    if applied:  # the set of patches is checked once every test has its patch
        lines.append(f"applied to {', '.join(applied)} (verified alone; checked in a set below)")
        return lines
    assert patch is not None
    lines.append(f"patch: {patch}")
    # A patch outside the project (next to a --report elsewhere) is named absolutely.
    base = sources or project
    cmds = apply_commands(base, patch.relative_to(base) if patch.is_relative_to(base) else patch)
    lines.append(f"apply it: {cmds[0]}")
    lines += [f"      or: {c}" for c in cmds[1:]]
    again = ["orderdep", "fix", str(project), "--test", result.test, "--strategy", fix.strategy]
    again += [a for p in polluters for a in ("--polluter", p)]
    if report is not None:
        again += ["--report", str(report)]
    lines.append(f"      or: {shlex.join([*again, *engine_flags(params), '--apply'])}")
    return lines


__all__ = ["fix_lines"]
