"""Reset-method finder, literal mining and call sequences (003 §3.2.1-3.2.2)."""

from __future__ import annotations

import textwrap

from orderdep.analysis.repair.candidates.reset_calls import (
    call_sequences,
    excess_literals,
    generate,
    mine_literals,
)
from orderdep.analysis.repair.candidates.resets import find_reset_methods
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView

MODULE = textwrap.dedent(
    '''
    """A registry."""
    _JOBS = {}
    FLAG = False


    class Registry:
        instances = 0

        def __init__(self):
            self._items = {}

        def register(self, name):
            self._items[name] = True

        def unregister(self, name: str):
            del self._items[name]

        @classmethod
        def reset_count(cls):
            cls.instances = 0

        @staticmethod
        def describe():
            return "registry"


    REGISTRY = Registry()


    def get_registry():
        return REGISTRY


    def add(name):
        _JOBS[name] = True


    def cancel(name):
        _JOBS.pop(name, None)


    def reset():
        _JOBS.clear()


    def set_flag(value):
        global FLAG
        FLAG = value


    def test_helper():
        _JOBS.clear()
    '''
)


def root(
    name: str, module: str, attrs: tuple[str, ...], f: object = None, p: object = None
) -> RootInfo:
    kind = "global" if len(attrs) == 1 else "classattr"
    return RootInfo(name, kind, ValueView(True, f), ValueView(True, p), module=module, attrs=attrs)


def paths(methods: list) -> list[tuple[str, ...]]:  # type: ignore[type-arg]
    return [m.path for m in methods]


def test_collection_mutators_and_rebinding_are_found_best_first() -> None:
    jobs = find_reset_methods(MODULE, root("m._JOBS", "m", ("_JOBS",)))
    # reset() (a reset word, no arguments, clear) first; test helpers last
    assert paths(jobs) == [("reset",), ("cancel",), ("test_helper",)]
    assert jobs[0].why == "calls _JOBS.clear()"
    flag = find_reset_methods(MODULE, root("m.FLAG", "m", ("FLAG",)))
    assert paths(flag) == [("set_flag",)]
    assert flag[0].why == "rebinds FLAG"


def test_class_attributes_through_class_and_static_methods() -> None:
    found = find_reset_methods(MODULE, root("m.Registry.instances", "m", ("Registry", "instances")))
    assert paths(found) == [("Registry", "reset_count")]


def test_instance_held_by_a_global_reached_through_it_and_its_getter() -> None:
    found = find_reset_methods(MODULE, root("m.REGISTRY", "m", ("REGISTRY",)))
    assert set(paths(found)) == {
        ("REGISTRY", "unregister"),
        ("get_registry", "unregister"),
    }
    via_getter = [m for m in found if m.path[0] == "get_registry"]
    assert via_getter[0].via_call
    assert via_getter[0].params[0].annotation == "str"


def test_literals_skip_docstrings_and_come_from_the_excess_too() -> None:
    assert mine_literals(['def f():\n    """doc"""\n    g("job_7", 3, True)\n']) == ["job_7", 3]
    r = root(
        "m._JOBS", "m", ("_JOBS",),
        ["dict", "dict", [["'a'", ["atom", "bool", "True"]], ["'job_9'", ["atom", "bool", "True"]]]],
        ["dict", "dict", [["'a'", ["atom", "bool", "True"]]]],
    )  # fmt: skip
    assert excess_literals(r) == ["job_9"]


def test_call_sequences_fill_parameters_with_fitting_literals() -> None:
    methods = find_reset_methods(MODULE, root("m.REGISTRY", "m", ("REGISTRY",)))
    seqs = call_sequences(methods, ["job_7", 4, "job_8"])
    calls = [s.calls for s in seqs]
    # str-annotated parameter: only the strings; one sequence with all, then each alone
    assert calls[:3] == [
        ("{m}.REGISTRY.unregister('job_7')", "{m}.REGISTRY.unregister('job_8')"),
        ("{m}.REGISTRY.unregister('job_7')",),
        ("{m}.REGISTRY.unregister('job_8')",),
    ]
    assert ("{m}.get_registry().unregister('job_7')",) in calls


def test_generate_combines_everything() -> None:
    r = root(
        "m._JOBS", "m", ("_JOBS",),
        ["dict", "dict", [["'job_7'", ["atom", "bool", "True"]]]], ["dict", "dict", []],
    )  # fmt: skip
    gen = generate(r, MODULE, ['def test_p():\n    add("job_7")\n'])
    assert gen.literals[0] == "job_7"
    assert gen.sequences[0].calls == ("{m}.reset()",)
    assert ("{m}.cancel('job_7')",) in [s.calls for s in gen.sequences]
