"""Test ids that change between processes, and how orderdep still names one test.

A test parametrized with values made at import (``datetime.now()``, ``random``,
``time.time_ns()``) gets a new node id in every Python process that collects it:
``tests/test_x.py::test_stamp[2026-11-28 02:15:03.669876]`` in one,
``...[2026-11-28 02:15:04.012345]`` in the next. orderdep collects a suite once and
shows that collection's ids; processes that collect again (the subprocess runner,
plain pytest, another worker) find the same test by *alignment*: ids both collections
share stand for themselves, and within one parametrize set (the items whose ids share
the part before ``[``) the ids left over on each side are paired by position, when
both collections have the same number of items in that set. A set whose size differs
cannot be paired: its changed ids are *missing*.

Pure: works on node-id strings only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# What the user reads wherever ids of one collection are not found in another.
VOLATILE_CAUSE = (
    "parametrize ids that change between two collections (values made at import, e.g. "
    "from the clock or `random`)"
)
VOLATILE_FIX = (
    "give those parameters stable ids (`pytest.param(value, id=...)` or `ids=`), or "
    "name the test without its parameters (path::test_name)"
)
SHOWN = 3


def param_base(node_id: str) -> str:
    """``node_id`` without its parametrize part (``path::test[a-1]`` -> ``path::test``)."""
    return node_id.partition("[")[0]


def has_params(node_id: str) -> bool:
    return "[" in node_id


def _by_base(ids: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for test in ids:
        if has_params(test):
            out.setdefault(param_base(test), []).append(test)
    return out


def align(first: Sequence[str], second: Sequence[str]) -> dict[str, str]:
    """Each id of ``first`` that has a counterpart in ``second``, mapped to it.

    Shared ids map to themselves; in a parametrize set of the same size on both sides,
    the ids found on one side only are paired in collection order. The result is
    one-to-one.
    """
    in_second = set(second)
    out = {test: test for test in first if test in in_second}
    second_sets = _by_base(second)
    for base, tests in _by_base(first).items():
        other = second_sets.get(base, [])
        if len(other) != len(tests):
            continue
        in_first = set(tests)
        left = [t for t in tests if t not in in_second]
        right = [t for t in other if t not in in_first]
        out.update(zip(left, right))
    return out


def translate(
    order: Sequence[str], own: Sequence[str], reference: Sequence[str]
) -> tuple[dict[str, str], list[str]]:
    """How a process that collected ``own`` runs ``order``, whose ids are those of the
    ``reference`` collection: every reference id it collected under another id
    (reference id -> own id; not only the order's), and the order's ids it cannot find
    (each once, in order)."""
    own_set = set(own)
    absent = [t for t in dict.fromkeys(order) if t not in own_set]
    if not absent:
        return {}, []
    renamed = {r: o for r, o in align(reference, own).items() if r != o}
    return renamed, [t for t in absent if t not in renamed]


def same_tests(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether two collections hold the same tests in the same order, some perhaps under
    other (volatile) ids."""
    if len(first) != len(second):
        return False
    aligned = align(first, second)
    return [aligned.get(t) for t in first] == list(second)


def same_test_set(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether two collections hold the same tests, perhaps in another order (a
    parametrize set built by iterating a set of strings, whose order changes with the
    hash seed of each process), some perhaps under other (volatile) ids."""
    if len(first) != len(second) or len(set(second)) != len(second):
        return False
    aligned = align(first, second)
    return len(aligned) == len(first) and set(aligned.values()) == set(second)


def changed(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """The ids of ``first`` that ``second`` names differently or lacks."""
    in_second = set(second)
    return [t for t in first if t not in in_second]


def looks_volatile(test: str, ids: Iterable[str]) -> bool:
    """Whether ``test`` (not among ``ids``) has parameters and its test function is
    parametrized in ``ids``: the same test, likely under another volatile id."""
    return has_params(test) and param_base(test) in _by_base(ids)


def shown_ids(tests: Sequence[str]) -> str:
    """Up to :data:`SHOWN` ids, then how many more."""
    shown = ", ".join(tests[:SHOWN])
    return shown + (f" and {len(tests) - SHOWN} more" if len(tests) > SHOWN else "")


def volatile_notice(tests: Sequence[str]) -> str:
    """The one line that names tests whose ids change between processes."""
    return (
        f"orderdep: {len(tests)} test id(s) change between two collections of this suite "
        f"(volatile parametrize ids, e.g. from the clock or `random`): {shown_ids(tests)}; "
        "fresh processes run each by its position in its parametrize set, results keep the "
        "ids shown here"
    )


def missing_notice(tests: Sequence[str]) -> str:
    """The one line that names tests a fresh process cannot match at all."""
    if not all(has_params(t) for t in tests):
        return (
            f"orderdep: {len(tests)} test(s) collected here are not collected in a fresh "
            f"process, which cannot run them: {shown_ids(tests)} (what is collected depends "
            "on the process: the clock, `random`, the environment?)"
        )
    return (
        f"orderdep: {len(tests)} test(s) have other ids in a fresh process, which collects "
        f"another number of parameters for them, so they cannot be matched: "
        f"{shown_ids(tests)}; {VOLATILE_FIX}"
    )


def volatile_cause(unknown: Sequence[str], ids: Sequence[str]) -> str:
    """One line on why ``unknown`` ids are not among ``ids`` when they look like another
    collection's volatile ids ("" otherwise)."""
    sets = _by_base(ids)
    alike = [t for t in unknown if has_params(t) and param_base(t) in sets]
    if not alike:
        return ""
    functions = list(dict.fromkeys(param_base(t) for t in alike))
    return (
        f"Likely cause: the parametrize ids of {shown_ids(functions)} change between two "
        f"collections (values made at import, e.g. from the clock or `random`); "
        f"{VOLATILE_FIX}."
    )


def not_collected_message(test: str, own: Iterable[str]) -> str:
    """Why ``test`` was not run in a process that collected ``own``."""
    if looks_volatile(test, own):
        return (
            f"not collected in this test process: {test!r}, likely a test with "
            f"{VOLATILE_CAUSE}; {VOLATILE_FIX}"
        )
    return (
        f"not collected in the test process: {test!r} "
        "(does addopts deselect tests, e.g. --lf or -m?)"
    )
