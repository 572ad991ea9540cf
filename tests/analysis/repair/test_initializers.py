"""A polluted global or class attribute made fresh the way its module made it
(``monkeypatch.setattr(TestGraph, "graph", Graph())``), when no literal writes its value:
unit tests on sources, and the corpus project ``class_attr_chain_graph``, whose test class
shares one graph its tests build on."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import copy_project, repaired

from orderdep.analysis.repair.candidates.initializers import initializer, initializer_restores
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding

SOURCE = textwrap.dedent(
    """\
    import collections
    from graphs import Graph

    _registry = collections.OrderedDict()
    counts = {"a": 1}
    alias = counts
    twice = []
    twice = []
    grown = []
    grown += [1]
    handlers = [lambda: 1]


    class TestGraph:
        graph: Graph = Graph()
        size = 3
        sized = Graph(size)
    """
)


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        (("_registry",), "collections.OrderedDict()"),
        (("counts",), "{'a': 1}"),
        (("TestGraph", "graph"), "Graph()"),
        (("alias",), None),  # a bare name: the polluted object itself
        (("twice",), None),  # assigned twice: which one is unknown
        (("grown",), None),  # changed after it was made
        (("handlers",), None),  # a lambda's names are its own
        (("TestGraph", "sized"), None),  # `size` lives in the class body only
        (("missing",), None),
        (("NoClass", "graph"), None),
    ],
)
def test_the_one_assignment_that_makes_a_new_object(
    attrs: tuple[str, ...], expected: object
) -> None:
    value = initializer(SOURCE, attrs)
    assert (ast.unparse(value) if value is not None else None) == expected


def _root(module: str, attrs: tuple[str, ...], kind: str = "global") -> RootInfo:
    present = ValueView(present=True, type="OrderedDict")
    return RootInfo(
        name=".".join([module, *attrs]), kind=kind, failing=present, passing=present,
        module=module, attrs=attrs, module_file=module.replace(".", "/") + ".py",
    )  # fmt: skip


def test_names_of_another_module_are_reached_through_it(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app/settings.py").write_text(SOURCE)
    names = ModuleNames.parse("import pytest\n", "tests.test_app")
    (undone, stays) = initializer_restores(
        tmp_path, _root("app.settings", ("_registry",)), names, "tests.test_app"
    )
    # `collections` as the settings module imported it, the attribute through the module
    assert undone == (
        ["import collections", "from app import settings",
         "monkeypatch.setattr(settings, '_registry', collections.OrderedDict())"],
        ["monkeypatch"],
    )  # fmt: skip
    assert stays == (
        ["import collections", "from app import settings",
         "settings._registry = collections.OrderedDict()"],
        [],
    )  # fmt: skip
    # a name the module made itself is reached through it
    (tmp_path / "app/settings.py").write_text("class Registry:\n    pass\n\n\n_registry = "
                                              "Registry()\n")  # fmt: skip
    (undone, _) = initializer_restores(
        tmp_path, _root("app.settings", ("_registry",)), names, "tests.test_app"
    )
    assert undone[0][-1] == "monkeypatch.setattr(settings, '_registry', settings.Registry())"


def test_a_test_class_attribute_in_the_tests_own_module(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_g.py").write_text(SOURCE)
    names = ModuleNames.parse(SOURCE, "tests.test_g")
    root = _root("tests.test_g", ("TestGraph", "graph"), kind="classattr")
    assert [s for s, _ in initializer_restores(tmp_path, root, names, "tests.test_g")] == [
        ["monkeypatch.setattr(TestGraph, 'graph', Graph())"],
        ["TestGraph.graph = Graph()"],
    ]
    literal = ValueView(present=True, type="dict", literal="{}")
    root = dataclasses.replace(root, passing=literal)  # a literal writes it already
    assert initializer_restores(tmp_path, root, names, "tests.test_g") == []


@pytest.mark.slow
def test_the_victim_of_a_shared_test_class_graph_gets_a_fresh_one_holding_under_pytest(
    tmp_path: Path,
) -> None:
    root = copy_project("class_attr_chain_graph", tmp_path / "p")
    t = "tests/test_graph.py::TestGraph::"
    victim, polluters = t + "test_first_vertex", [t + "test_second_vertex", t + "test_loop"]
    finding = ODFinding(victim, "victim", polluters=polluters)
    orders = [[p, victim] for p in polluters] + [[victim, *polluters], [*polluters, victim]]
    new = repaired(root, finding, orders, tmp_path / "work")
    # no reset in place puts back a list of vertex objects; the tests after the victim
    # build on the vertex it adds, so the new graph stays
    assert "        TestGraph.graph = Graph()\n" in new["tests/test_graph.py"], new
