from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from orderdep.analysis.state.fingerprint import Fingerprinter, fingerprint, identity


class Box:
    def __init__(self, value: Any) -> None:
        self.value = value


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self) -> None:
        self.a = 1


def test_dicts_and_sets_are_order_insensitive_but_lists_are_not() -> None:
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})
    assert fingerprint({"x", "y", "z"}) == fingerprint({"z", "y", "x"})
    assert fingerprint({Box(1).__class__.__name__: {3, 1, 2}}) == fingerprint({"Box": {1, 2, 3}})
    assert fingerprint([1, 2]) != fingerprint([2, 1])


def test_in_place_changes_change_the_fingerprint() -> None:
    for value, mutate in [
        ([1, 2], lambda v: v.append(3)),
        ({"k": [1]}, lambda v: v["k"].append(2)),
        ({"k": {"deep": {1}}}, lambda v: v["k"]["deep"].add(2)),
        (Box([1]), lambda v: v.value.append(2)),
        (Box(1), lambda v: setattr(v, "other", 2)),
        (Slotted(), lambda v: setattr(v, "b", 5)),
        (collections.deque([1]), lambda v: v.appendleft(0)),
        (bytearray(b"ab"), lambda v: v.extend(b"c")),
        (random.Random(1), lambda v: v.random()),
        ([Box({"a": 1})], lambda v: v[0].value.update(b=2)),
    ]:
        before = fingerprint(value)
        assert fingerprint(value) == before, value
        mutate(value)
        assert fingerprint(value) != before, value


def test_equal_content_equal_fingerprint_across_objects() -> None:
    assert fingerprint(Box({"a": (1, 2)})) == fingerprint(Box({"a": (1, 2)}))
    assert fingerprint([float("nan")]) == fingerprint([float("nan")])


def test_functions_and_classes_count_by_identity() -> None:
    def f() -> None:
        pass

    def g() -> None:
        pass

    assert fingerprint(f) == fingerprint(f)
    assert fingerprint(f) != fingerprint(g)
    assert fingerprint([f]) != fingerprint([g])
    walker = Fingerprinter()
    walker.fingerprint(Box)
    assert not walker.mutable


def test_cycles_and_aliases_terminate_and_see_changes() -> None:
    a: list[Any] = [1]
    a.append(a)
    shared = [0]
    pair = {"x": shared, "y": shared}
    fa, fp = fingerprint(a), fingerprint(pair)
    a.append(2)
    shared.append(1)
    assert fingerprint(a) != fa
    assert fingerprint(pair) != fp


def test_budget_truncates_big_values() -> None:
    walker = Fingerprinter(max_nodes=10)
    walker.fingerprint([[i] for i in range(100)])
    assert walker.truncated
    walker = Fingerprinter(max_depth=3)
    deep: list[Any] = []
    node = deep
    for _ in range(10):
        node.append([])
        node = node[0]
    walker.fingerprint(deep)
    assert walker.truncated


def test_owners_record_mutable_objects_reached() -> None:
    owners: dict[int, set[str]] = {}
    partners: dict[str, set[str]] = {}
    inner = [1]
    walker = Fingerprinter(owners=owners, partners=partners)
    walker.fingerprint({"k": inner}, "mod.A")
    walker.fingerprint(Box(inner), "mod.B")
    walker.fingerprint([2], "mod.D")
    assert owners[identity(inner)] == {"mod.A", "mod.B"}
    assert partners == {"mod.A": {"mod.B"}, "mod.B": {"mod.A"}}
    assert walker.mutable
    walker.fingerprint((1, "x", (2.0,)), "mod.C")
    assert not walker.mutable


class Hostile:
    """A context-local proxy: every attribute lookup raises (``__class__`` included)."""

    def __getattribute__(self, name: str) -> Any:
        raise RuntimeError("working outside of application context")


def test_system_random_counts_by_identity_and_the_rest_of_the_root_by_content() -> None:
    rng = random.SystemRandom()
    value = {"rng": rng, "items": [1]}
    before = fingerprint(value)
    rng.random()  # no state to see
    assert fingerprint(value) == before
    value["items"].append(2)
    assert fingerprint(value) != before
    assert fingerprint(rng) == fingerprint(rng) != fingerprint(random.SystemRandom())


def test_a_node_that_raises_counts_by_identity_without_hiding_its_neighbours() -> None:
    value = [Hostile(), Box([1])]
    before = fingerprint(value)
    assert fingerprint(value) == before
    value[1].value.append(2)
    assert fingerprint(value) != before
    walker = Fingerprinter()
    walker.fingerprint(Hostile())
    assert walker.mutable  # walked again next time


def test_a_numpy_array_written_in_place_changes_its_fingerprint() -> None:
    np = pytest.importorskip("numpy")
    small = np.zeros((100, 10))
    before = fingerprint(small)
    assert fingerprint(np.zeros((100, 10))) == before  # by content, not identity
    small[5, 3] = 0.1
    assert fingerprint(small) != before
    big = np.zeros((3000, 1000))  # 24 MB: sampled, and a write at the start still shows
    before = fingerprint(big)
    big[0, 0] = 1.0
    assert fingerprint(big) != before
    strided = np.zeros((3000, 1000))[:, ::2]
    before = fingerprint(strided)
    strided[0, 0] = 1.0
    assert fingerprint(strided) != before
    masked = np.ma.array(np.zeros(5))
    before = fingerprint(masked)
    masked[2] = 3.0
    assert fingerprint(masked) != before
    objects = np.array([object(), 1], dtype=object)  # no readable buffer: identity
    assert fingerprint(objects) == fingerprint(objects)
    before = fingerprint(small)  # that one array's buffer failed, not its type's
    small[0, 0] = 2.0
    assert fingerprint(small) != before
