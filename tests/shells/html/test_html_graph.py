"""The report's dependency graph: every relation becomes an edge; the layout is legible."""

from __future__ import annotations

import itertools
import re

from html_helpers import big_report

from orderdep.core.odmodel import group_key
from orderdep.core.report import ODFinding, Report
from orderdep.shells.html.graph import (
    CHAR_WIDTH,
    NODE_HEIGHT,
    build_graph,
    layout,
    short_label,
)

V, B, P, C, S = (f"tests/test_a.py::test_{n}" for n in ("victim", "brittle", "pol", "clean", "set"))
G1, G2 = "tests/test_b.py::test_g1", "tests/test_b.py::test_g2"
IDS = [V, B, P, C, S, G1, G2]


def small_report() -> Report:
    victim = ODFinding(
        V, "victim", failing_order=[P, V], passing_order=[V], polluters=[P],
        polluter_groups=[[G1, G2]], cleaners={P: [C], group_key([G1, G2]): [C]},
    )  # fmt: skip
    victim.extras["pradet"] = {
        "dependencies": [
            {"dependent": V, "dependee": P, "roots": ["app.CART", "env:X"], "kind": "victim"}
        ]
    }
    brittle = ODFinding(B, "brittle", failing_order=[B], passing_order=[S, B], state_setters=[S])
    return Report(project="/p", tests=IDS, od_tests=[victim, brittle])


def test_every_relation_is_an_edge_and_every_partner_a_node() -> None:
    g = build_graph(small_report())
    group = f"group:{group_key([G1, G2])}"
    assert set(g.edges(keys=True)) == {
        (f"test:{P}", f"test:{V}", "pollutes"),
        (group, f"test:{V}", "pollutes"),
        (f"test:{G1}", group, "member"),
        (f"test:{G2}", group, "member"),
        (f"test:{C}", f"test:{V}", "cleans"),
        (f"test:{S}", f"test:{B}", "sets"),
        (f"test:{P}", "root:app.CART", "writes"),
        (f"test:{P}", "root:env:X", "writes"),
        ("root:app.CART", f"test:{V}", "reads"),
        ("root:env:X", f"test:{V}", "reads"),
    }
    kinds = {k: d["kind"] for k, d in g.nodes(data=True)}
    assert kinds[f"test:{V}"] == "victim" and kinds[f"test:{B}"] == "brittle"
    assert kinds[f"test:{P}"] == "polluter" and kinds[f"test:{C}"] == "cleaner"
    assert kinds[f"test:{S}"] == "setter" and kinds[group] == "group"
    assert kinds["root:env:X"] == "root"
    # the cleaner resets the victim after the polluter and after the group: one edge, two notes
    notes = g.edges[f"test:{C}", f"test:{V}", "cleans"]["notes"]
    assert len(notes) == 2 and any(G1 in n and G2 in n for n in notes)


def test_a_test_with_several_roles_is_drawn_once_as_its_main_role() -> None:
    # V pollutes B while being a victim itself
    report = small_report()
    report.od_tests[1].kind = "victim"
    report.od_tests[1].state_setters = []
    report.od_tests[1].polluters = [V]
    g = build_graph(report)
    assert g.nodes[f"test:{V}"]["kind"] == "victim"
    assert g.nodes[f"test:{V}"]["roles"] == ["victim", "polluter"]
    view = layout(g)
    by_key = {n.key: n for n in view.nodes}
    v, b = by_key[f"test:{V}"], by_key[f"test:{B}"]
    assert abs((v.x + v.width / 2) - (b.x + b.width / 2)) < 0.2  # one column: the OD tests
    (edge,) = [e for e in view.edges if (e.source, e.target) == (v.dom_id, b.dom_id)]
    # an arc from V's right side to B's right side
    end = edge.path.rsplit(" ", 1)[-1]
    assert edge.path.startswith(f"M{v.x + v.width:.1f},")
    assert end.startswith(f"{b.x + b.width:.1f},")


def boxes_overlap(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float]
) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def test_layout_of_200_plus_nodes_has_no_overlapping_boxes() -> None:
    report = big_report("/p")
    view = layout(build_graph(report))
    assert len(view.nodes) >= 200
    boxes = [(n.x, n.y, n.width, n.height) for n in view.nodes]
    assert not [(a, b) for a, b in itertools.combinations(boxes, 2) if boxes_overlap(a, b)]
    for n in view.nodes:
        assert n.x >= 0 and n.x + n.width <= view.width
        assert n.y >= 0 and n.y + n.height <= view.height
        # each box is wide enough for its label
        assert n.width >= len(n.label) * CHAR_WIDTH and n.height == NODE_HEIGHT
    # not a long thin strip: zoomed to fit, labels stay readable on a wide screen
    assert 0.3 < view.width / view.height < 6
    ids = {n.dom_id for n in view.nodes}
    assert len(ids) == len(view.nodes)
    for e in view.edges:
        assert e.source in ids and e.target in ids
        assert re.fullmatch(r"M[-\d., CL]+", e.path), e.path


def test_edges_that_skip_columns_run_in_rows_of_their_own() -> None:
    # polluter -> victim skips the cleaner's column: it must not run through the cleaner
    report = small_report()
    view = layout(build_graph(report))
    by_key = {n.key: n for n in view.nodes}
    cleaner = by_key[f"test:{C}"]
    (edge,) = [
        e for e in view.edges if e.relation == "pollutes" and e.source == by_key[f"test:{P}"].dom_id
    ]
    assert " L" in edge.path  # through a waypoint
    crossing = [float(y) for y in re.findall(r"L[\d.]+,([\d.]+)", edge.path)]
    assert all(not (cleaner.y <= y <= cleaner.y + cleaner.height) for y in crossing)


def test_short_labels() -> None:
    assert short_label("tests/unit/test_x.py::TestA::test_b") == "test_x.py::TestA::test_b"
    long = "tests/test_" + "x" * 30 + ".py::test_" + "y" * 30
    assert short_label(long) == "test_" + "y" * 30
    assert short_label("z" * 80, 20) == "…" + "z" * 19
