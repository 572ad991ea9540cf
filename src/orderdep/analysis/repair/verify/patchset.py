"""One consistent patch set for every repaired OD test of a project (verified together).

Fixes are found one OD test at a time; applied together they must still hold. The
instances of one parametrized test share one patch (:func:`function_id`); overlapping
insertions into one function are merged by applying them to the same text (an insertion
already there is not repeated). :func:`verify_set` runs the patched copy of the project
in the original order, in every failing order of every repaired test and in
``random_orders`` seeded shuffles of the suite: a test may fail there only if it failed
in the unpatched original order (or, outside it, in the same order unpatched) and is not
one of the repaired tests; OD tests left unrepaired are not compared outside the original
order. A repaired test failing in a random order as it does there unpatched has a
relation its report does not name: the patch still holds for the relations it was
verified for, and the test is listed in :attr:`Verification.elsewhere` (not a problem).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.verify.verify import (
    Target,
    Verification,
    Verifier,
    write_changes,
)
from orderdep.analysis.repair.write.patches import (
    Changes,
    Insertion,
    apply_insertions,
    function_path,
)
from orderdep.core.outcomes import OrderResult, TestResult
from orderdep.engine.sandbox import copy_path, copy_project
from orderdep.engine.tempdirs import make_workdir
from orderdep.errors import OrderdepError, OutOfTime

RANDOM_ORDERS = 20


def function_id(test: str) -> str:
    """The node id of the function a (parametrized) test instance belongs to."""
    module, classes, name = function_path(test)
    return "::".join([module, *classes, name])


def distinct(insertions: Iterable[Insertion]) -> list[Insertion]:
    """``insertions`` without repeats; one that differs from an earlier one only in its
    comment (the same guard found for two victims of one polluter) is a repeat, and the
    comment kept names every victim (:func:`merged_comment`)."""
    index: dict[Insertion, int] = {}
    comments: dict[int, list[str]] = {}
    out: list[Insertion] = []
    for ins in insertions:
        key = dataclasses.replace(ins, comment=None)
        if key not in index:
            index[key] = len(out)
            out.append(ins)
            comments[index[key]] = [ins.comment] if ins.comment else []
        elif ins.comment:
            comments[index[key]].append(ins.comment)
    for i, said in comments.items():
        if len(set(said)) > 1:
            out[i] = dataclasses.replace(out[i], comment=merged_comment(said))
    return coalesce(out)


_UNSET = re.compile(r"monkeypatch\.delenv\((['\"])(\w+)\1, raising=False\)$")


def _unset_once(statements: Iterable[str]) -> tuple[str, ...]:
    """``statements`` without ``monkeypatch.delenv(K, raising=False)`` where the pair
    ``monkeypatch.setenv(K, '')``, ``monkeypatch.delenv(K)`` follows: the pair unsets K
    too, and has monkeypatch put back whatever K was (set or not) at the end."""
    out = list(statements)
    pairs = set(zip(out, out[1:]))
    return tuple(
        st
        for st in out
        if not (m := _UNSET.match(st))
        or (
            f"monkeypatch.setenv({m[1]}{m[2]}{m[1]}, '')",
            f"monkeypatch.delenv({m[1]}{m[2]}{m[1]})",
        )
        not in pairs
    )


def coalesce(insertions: Sequence[Insertion]) -> list[Insertion]:
    """One insertion per place (function, method and kind of edit): the statements of
    insertions into the same place in their order, each statement once, their fixtures
    and their comments together. Two guards for one polluter then read as one block (in
    a ``TestCase`` one ``MonkeyPatch``, not one per guard)."""
    groups: dict[tuple[str, str, Optional[str], str, Optional[str]], list[Insertion]] = {}
    for ins in insertions:
        place = function_id(ins.test) if ins.edit != "narrow" else ins.test
        groups.setdefault((ins.file, place, ins.method, ins.edit, ins.after), []).append(ins)
    out: list[Insertion] = []
    for (_, _, _, edit, _), group in groups.items():
        if len(group) == 1 or edit == "narrow":
            out += group
            continue
        said = list(dict.fromkeys(i.comment for i in group if i.comment))
        comment = merged_comment(said) if said else None
        if len(said) > 1 and comment == said[0]:  # they say different things: all of it
            comment = joined_comment(said)
        out.append(
            dataclasses.replace(
                group[0],
                statements=_unset_once(dict.fromkeys(st for i in group for st in i.statements)),
                fixtures=tuple(dict.fromkeys(f for i in group for f in i.fixtures)),
                comment=comment,
            )
        )
    return out


_NEEDS = re.compile(r" \(([^()]+?) needs? it\)")


def joined_comment(comments: Sequence[str]) -> str:
    """Comments that say different things, one after the other; those that say the same
    but for the tests in their ``(test_a needs it)`` are said once, naming every test:
    ``Put X back (test_a needs it).`` and ``Put X back (test_b and test_c need it).``
    become ``Put X back (test_a, test_b and test_c need it).``"""
    names: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for comment in comments:
        found = _NEEDS.search(comment)
        bare = comment if found is None else comment[: found.start()] + comment[found.end() :]
        first.setdefault(bare, comment)
        if found is not None:
            listed = names.setdefault(bare, [])
            listed += [n for n in re.split(r", | and ", found[1]) if n not in listed]
    out = []
    for bare, comment in first.items():
        tests = names.get(bare)
        found = _NEEDS.search(comment)
        if tests and found is not None:
            who = tests[0] if len(tests) == 1 else ", ".join(tests[:-1]) + " and " + tests[-1]
            verb = "needs" if len(tests) == 1 else "need"
            comment = f"{comment[: found.start()]} ({who} {verb} it){comment[found.end() :]}"
        out.append(comment)
    return " ".join(out)


def merged_comment(comments: Sequence[str]) -> str:
    """One comment for a patch that fixes several tests whose comments differ only in the
    test they name: ``(test_a needs it)`` and ``(test_b needs it)`` become ``(test_a and
    test_b need it)``, three ``(test_a, test_b and test_c need it)``. Other differences
    keep the first comment."""
    first = comments[0].split(" ")
    split = [c.split(" ") for c in comments]
    if any(len(words) != len(first) for words in split):
        return comments[0]
    differ = {i for words in split for i, (x, y) in enumerate(zip(first, words)) if x != y}
    if len(differ) != 1:
        return comments[0]
    (at,) = differ
    word = first[at]
    lead = "(" if word.startswith("(") else ""
    tail = word[len(word.rstrip(".,;:)")) :]
    bare = [w[at][len(lead) : len(w[at]) - len(tail)] for w in split]
    unique = list(dict.fromkeys(bare))
    joined = ", ".join(unique[:-1]) + " and " + unique[-1]
    words = [*first[:at], lead + joined + tail, *first[at + 1 :]]
    if at + 1 < len(words) and words[at + 1] in ("needs", "fails"):
        words[at + 1] = words[at + 1][:-1]  # "needs" -> "need", "fails" -> "fail"
    return " ".join(words)


def merged_changes(project: Path, insertions: Iterable[Insertion]) -> Changes:
    """Every insertion applied to the project's texts together (repeats once)."""
    return apply_insertions(project, distinct(insertions))


def set_orders(
    suite: Sequence[str], targets: Sequence[Target], seed: int, n: int
) -> list[tuple[str, list[str]]]:
    """(what, order) pairs the patch set must hold in."""
    out = [("the original order", list(suite))]
    for t in targets:
        out += [(f"a failing order of {t.test}", list(o)) for o in t.failing_orders]
    rng = random.Random(seed)
    for i in range(n):
        order = list(suite)
        rng.shuffle(order)
        out.append((f"random order {i + 1} (seed {seed})", order))
    return out


def _failed(
    result: OrderResult,
    original: bool,
    repaired: AbstractSet[str],
    skip: AbstractSet[str],
    others: AbstractSet[str],
) -> list[TestResult]:
    """The failures of a set check's ``result`` to look at: every repaired test's, and
    the others' not in ``skip`` (tests failing anyway, or at random); OD tests left
    unrepaired (``others``) may fail in orders other than the ``original``."""
    if not original:
        skip = skip | others
    return [
        r
        for r in result.results
        if r.outcome.is_failure and (r.test in repaired or r.test not in skip)
    ]


def verify_set(
    verifier: Verifier,
    changes: Changes,
    targets: Sequence[Target],
    *,
    seed: int = 0,
    random_orders: int = RANDOM_ORDERS,
    unrepaired: Optional[Iterable[str]] = (),
) -> Verification:
    """Run the patched project in :func:`set_orders`; see the module doc."""
    out = Verification(ok=False)
    suite = verifier.original_order()
    baseline = verifier.before(suite)
    ignore = verifier.nd_tests  # and what flips unpatched, once a failure needs it
    repaired = {t.test for t in targets}
    allowed = {r.test for r in baseline.results if r.outcome.is_failure} - repaired
    # without a report the other OD tests are unknown: random orders check the repaired
    others = set(suite if unrepaired is None else unrepaired) - repaired
    with make_workdir("orderdep-fixset-") as tmp:
        copy = copy_path(Path(tmp), verifier.config.project)
        copy_project(verifier.config.project, copy)
        write_changes(copy / verifier.engine.suite.id_root, changes)
        planned = set_orders(suite, targets, seed, random_orders)
        try:
            with verifier.engine_on(copy, [order for _, order in planned]) as engine:
                if not verifier.same_suite(engine):
                    out.problems.append("the patched project collects different tests")
                    return out
                fixed = len(planned) - random_orders  # the original and failing orders
                for where, order in planned:
                    try:
                        result = engine.run(order)
                    except OutOfTime:
                        if out.orders_run < fixed:
                            raise
                        # every fixed order held: the random ones run are said, not claimed
                        done = out.orders_run - fixed
                        out.cut = f"the budget ended after {done} of {random_orders} random orders"
                        break
                    out.orders_run += 1
                    original = order == suite
                    failed = _failed(result, original, repaired, allowed | ignore, others)
                    if failed and not verifier.settled:
                        ignore = ignore | verifier.unstable()
                        failed = _failed(result, original, repaired, allowed | ignore, others)
                    random_order = where.startswith("random order")
                    if failed and (random_order or any(r.test not in repaired for r in failed)):
                        # not the patches' doing if it fails there unpatched too; for a
                        # repaired test, only in a random order (another relation)
                        before = verifier.before(order)
                        was = {b.test for b in before.results if b.outcome.is_failure}
                        for r in failed:
                            if r.test in repaired and r.test in was and random_order:
                                out.elsewhere.setdefault(
                                    r.test, f"{r.test} {r.outcome.value} in {where}"
                                )
                        failed = [
                            r
                            for r in failed
                            if r.test not in was or (r.test in repaired and not random_order)
                        ]
                    for r in failed:
                        out.problems.append(f"{r.test} {r.outcome.value} in {where}")
                    if out.problems:
                        return out
        except OutOfTime:
            raise  # the budget ended: not the patches' doing
        except OrderdepError as exc:
            out.problems.append(f"the patched project does not run: {exc}")
            return out
    out.ok = True
    return out


@dataclass
class HoldingSet:
    """The largest set of patches found to hold together, and why the others were left out."""

    kept: list[str]  # keys (function ids) of the patches kept, in the order tried
    left_out: dict[str, str]  # key -> what went wrong with it added
    changes: Changes  # the kept patches applied together
    orders_run: int
    cut: str = ""  # what the budget left out of the last check that held
    # repaired tests of the kept patches failing in a random order as without them
    elsewhere: dict[str, str] = field(default_factory=dict)


def holding_set(
    verifier: Verifier,
    project: Path,
    patches: Mapping[str, Sequence[Insertion]],
    targets: Mapping[str, Sequence[Target]],
    *,
    seed: int = 0,
    random_orders: int = RANDOM_ORDERS,
    unrepaired: Optional[Iterable[str]] = (),
) -> HoldingSet:
    """The patches (by key, in the order given) that hold together.

    All of them are verified together first (:func:`verify_set`); when they do not hold,
    they are added one at a time, each kept only if the set still holds with it, so one
    patch that conflicts costs itself, not the others. The tests of a patch left out count
    as unrepaired for the rest."""
    keys = list(patches)
    spent = 0
    others = None if unrepaired is None else set(unrepaired)
    cut = [""]
    elsewhere: dict[str, str] = {}

    def attempt(chosen: Sequence[str]) -> tuple[Optional[Changes], str]:
        nonlocal spent
        try:
            changes = merged_changes(project, [i for k in chosen for i in patches[k]])
        except OrderdepError as exc:
            return None, f"does not apply with the others: {exc}"
        left = set(keys) - set(chosen)
        skipped = None if others is None else others | {t.test for k in left for t in targets[k]}
        check = verify_set(
            verifier, changes, [t for k in chosen for t in targets[k]], seed=seed,
            random_orders=random_orders, unrepaired=skipped,
        )  # fmt: skip
        spent += check.orders_run
        if check.ok:
            cut[0] = check.cut
            elsewhere.clear()
            elsewhere.update(check.elsewhere)
        return (changes, "") if check.ok else (None, "; ".join(check.problems[:3]))

    changes, _ = attempt(keys)
    if changes is not None:
        return HoldingSet(keys, {}, changes, spent, cut[0], elsewhere)
    kept: list[str] = []
    left_out: dict[str, str] = {}
    best: Changes = {}
    for i, key in enumerate(keys):
        try:
            tried, why = attempt([*kept, key])
        except OutOfTime:  # what is kept held; the rest was not checked
            left_out.update({k: "not checked with the others (the budget ended)" for k in keys[i:]})
            break
        if tried is None:
            left_out[key] = why
        else:
            kept.append(key)
            best = tried
    return HoldingSet(kept, left_out, best, spent, cut[0], elsewhere)
