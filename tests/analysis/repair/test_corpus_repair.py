"""``orderdep fix`` on the repair corpus: hand-written projects in real-world shapes.

Each OD relation of :data:`~tests.analysis.repair.corpus_helpers.EXPECTED` is first
confirmed with plain pytest; then ``detect --classify`` and ``fix`` run as a user would
(and must leave the project unchanged), and the patches, applied with the command
``fix`` prints, must hold under plain pytest in fresh processes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import (
    EXPECTED,
    copy_project,
    plain_outcomes,
    repair_project,
    tree_hash,
)

pytestmark = pytest.mark.slow

TARGET_RATE = 0.8


def flip_orders(name: str) -> list[tuple[str, list[str], list[str]]]:
    """(test, its failing order, its passing order) for every OD test of ``name``."""
    out = []
    for test, (kind, partner) in EXPECTED[name].items():
        if kind == "victim":
            out.append((test, [partner, test], [test]))
        else:
            out.append((test, [test], [partner, test]))
    return out


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_relations_hold_under_plain_pytest(name: str, tmp_path: Path) -> None:
    root = copy_project(name, tmp_path / name)
    cases = flip_orders(name)
    orders = [o for _, failing, passing in cases for o in (failing, passing)]
    outcomes = plain_outcomes(root, orders, tmp_path / "work")
    for i, (test, _, _) in enumerate(cases):
        assert outcomes[2 * i][test] in ("failed", "error"), (test, outcomes[2 * i])
        assert outcomes[2 * i + 1][test] == "passed", (test, outcomes[2 * i + 1])


def apply_command(output: str) -> list[str]:
    """The printed command that applies every patch (the set, or the only patch)."""
    for label in ("apply them all: ", "apply it: "):
        lines = [line for line in output.splitlines() if line.startswith(label)]
        if lines:
            return shlex.split(lines[0][len(label) :])
    raise AssertionError(f"no apply command in:\n{output}")


def test_fix_repairs_four_in_five_and_the_patches_hold_under_plain_pytest(
    tmp_path: Path,
) -> None:
    total = repaired = 0
    misses: dict[str, list[str]] = {}
    for name in sorted(EXPECTED):
        result = repair_project(name, tmp_path / name)
        # without --apply nothing changes
        assert tree_hash(result.root) == tree_hash(copy_project(name, tmp_path / "orig" / name))
        expected = EXPECTED[name]
        total += len(expected)
        fixed = [t for t in expected if t in result.fixed]
        for t in expected:
            if t not in result.fixed:
                misses[t] = result.notes.get(t, ["not detected"])
        if not fixed:
            continue
        assert result.held, result.output
        repaired += len(fixed)
        # the printed command applies the set; every failing order now passes under plain
        # pytest, and so does the whole suite in its original and reversed order
        subprocess.run(apply_command(result.output), check=True, capture_output=True)
        cases = [c for c in flip_orders(name) if c[0] in fixed]
        report = json.loads((result.root / ".orderdep" / "report.json").read_text("utf-8"))
        suite = list(report["tests"])
        orders = [f for _, f, _ in cases]
        if len(fixed) == len(expected):
            orders += [suite, suite[::-1]]
        outcomes = plain_outcomes(result.root, orders, tmp_path / "work" / name)
        for order, outcome in zip(orders, outcomes):
            failed = {t: o for t, o in outcome.items() if o != "passed"}
            assert not failed, (name, order, failed, result.output)
    rate = repaired / total
    print(f"orderdep fix repaired {repaired} of {total} corpus OD tests ({rate:.0%})")
    for test, notes in misses.items():
        print(f"  unrepaired {test}: {' | '.join(notes)}")
    assert rate >= TARGET_RATE, misses
