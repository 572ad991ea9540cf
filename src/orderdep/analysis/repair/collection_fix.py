"""Repairing a test that fails as ``pytest FILE``: its file does at import what the
state-setter's module does.

Such a brittle (``collects`` in its finding, :mod:`orderdep.analysis.collection_check`)
fails only when pytest collects its file without the state-setter's; every order of the
whole suite hides it, so the orders :class:`~.fix.Repairer` verifies in cannot show a
repair. Here each candidate of :mod:`.candidates.module_setups` goes into a private copy
of the project (the user's tree is never touched), and a fresh pytest collecting only
the brittle's file runs that file's tests twice. A candidate is verified when the brittle
passes both times and no test of the file that passed as ``pytest FILE`` before fails;
tests of the file that failed there before and pass both times are named as also fixed
(:func:`shared_fix` then gives them the same patch without running anything). First a
run of the unpatched file shows the brittle still fails there. The patch set's check
later runs the whole suite with the patch among the others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.collection_check import file_of
from orderdep.analysis.repair.candidates.module_setups import ModuleSetup, module_setups
from orderdep.analysis.repair.fix_result import Fix, FixResult, Rejected
from orderdep.analysis.repair.verify.verify import (
    Verification,
    Verifier,
    copy_config,
    write_changes,
)
from orderdep.analysis.repair.write.patches import Insertion, apply_insertions
from orderdep.core.outcomes import OrderResult
from orderdep.core.report import COLLECTED_KEY, ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.engine.sandbox import copy_path, copy_project
from orderdep.engine.tempdirs import make_workdir

#: The strategy name of these fixes (``fix --strategy module``).
STRATEGY = "module"
#: Runs of the patched file a candidate must pass.
RUNS = 2


def collection_brittle(finding: Optional[ODFinding]) -> bool:
    """Whether ``finding`` is a brittle that fails only as ``pytest FILE``."""
    return finding is not None and finding.kind == "brittle" and COLLECTED_KEY in finding.extras


def _outcomes(result: OrderResult) -> dict[str, bool]:
    """Passed (True) or not, for each test of ``result`` with an outcome."""
    return {r.test: r.outcome.is_pass for r in result.results}


def _file_runs(
    config: EngineConfig, tests: Sequence[str], file: str, runs: int
) -> list[OrderResult]:
    """``tests`` (of ``file``) in ``runs`` fresh pytests that collect only ``file``."""
    with make_workdir("orderdep-module-") as tmp:
        runner = PlainRunner(config, Path(tmp) / "plain")
        try:
            return [runner.run_collecting(tests, [file]) for _ in range(runs)]
        finally:
            runner.close()


def _patched_runs(
    config: EngineConfig, changes: dict[str, tuple[str, str]], tests: Sequence[str], file: str
) -> list[OrderResult]:
    """:func:`_file_runs` in a private copy of the project with ``changes`` written."""
    with make_workdir("orderdep-module-copy-") as tmp:
        copy = copy_path(Path(tmp), config.project)
        copy_project(config.project, copy)
        write_changes(copy, changes)
        return _file_runs(copy_config(config, copy), tests, file, RUNS)


def _judge(test: str, before: dict[str, bool], runs: Sequence[OrderResult]) -> Verification:
    """Whether the patched ``runs`` repair ``test`` and keep what passed ``before``."""
    seen = [_outcomes(r) for r in runs]
    out = Verification(ok=True, orders_run=len(runs), runs_of="`pytest FILE`")
    if not all(s.get(test) for s in seen):
        out.ok = False
        out.problems.append(f"{test} still fails as `pytest {file_of(test)}`")
    broken = sorted(t for t, ok in before.items() if ok and not all(s.get(t) for s in seen))
    if broken:
        out.ok = False
        out.broken = broken
        out.problems.append(f"breaks {', '.join(broken)} as `pytest {file_of(test)}`")
    out.improved = sorted(
        t for t, ok in before.items() if not ok and t != test and all(s.get(t) for s in seen)
    )
    return out


def shared_fix(finding: ODFinding, done: Sequence[tuple[ODFinding, Fix]]) -> Optional[FixResult]:
    """The earlier module fix of ``finding``'s file whose verification passed it too."""
    for _, fix in done:
        if fix.strategy == STRATEGY and finding.test in fix.verification.improved:
            also = [fix.test, *(t for t in fix.verification.improved if t != finding.test)]
            said = dataclasses.replace(fix.verification, improved=also)  # the others
            shared = dataclasses.replace(fix, verification=said)
            return FixResult(finding.test, "brittle", fix=shared, candidates=1, verified=0)
    return None


def repair_collection(
    verifier: Verifier,
    finding: ODFinding,
    done: Sequence[tuple[ODFinding, Fix]] = (),
    progress: Callable[[str], None] = lambda message: None,
) -> FixResult:
    """A verified module-level patch for ``finding`` (see the module docstring)."""
    shared = shared_fix(finding, done)
    if shared is not None:
        return shared
    test, config = finding.test, verifier.config
    file = file_of(test)
    result = FixResult(test, "brittle")
    tests = [t for t in verifier.original_order() if file_of(t) == file] or [test]
    progress(f"running `pytest {file}` unpatched")
    before = _outcomes(_file_runs(config, tests, file, 1)[0])
    if before.get(test) is not False:
        result.reproduced = False
        said = "passes" if before.get(test) else "gets no outcome"
        result.notes.append(f"it {said} as `pytest {file}` now")
        return result
    setters = [file_of(s) for s in finding.state_setters]
    candidates: list[ModuleSetup] = module_setups(config.project, file, setters)
    result.candidates = len(candidates)
    if not candidates:
        result.notes.append(
            f"no candidate patch: no state-setter's file to take code from ({file})"
        )
    for cand in candidates:
        insertion = Insertion(
            test,
            cand.statements,
            comment=f"{cand.description}: `pytest {file}` needs it",
            edit="module_top",
        )
        changes = apply_insertions(config.project, [insertion])
        if not changes:
            continue
        progress(f"verifying for {test}: {cand.description}")
        verification = _judge(test, before, _patched_runs(config, changes, tests, file))
        result.verified += 1
        if verification.ok:
            result.fix = Fix(test, STRATEGY, cand.description, [insertion], changes, verification)
            return result
        result.rejected.append(
            Rejected(STRATEGY, cand.description, [insertion], verification.broken)
        )
        result.notes.append(f"{cand.description}: {verification.summary()}")
    return result
