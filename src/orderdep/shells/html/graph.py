"""The dependency graph of a report, laid out for the HTML page (inline SVG, no JS layout).

Nodes: OD tests (victims, brittles, unclassified), polluters, state-setters, cleaners,
polluter and state-setter groups, and the shared-state roots PRADET saw them write and
read. Edges carry one relation each (:data:`RELATIONS`).

Layout: every connected part of the graph gets a layered drawing whose columns follow
the time of a failing run (what runs first on the left, the OD tests on the right);
nodes in a column are ordered by the barycentre of their neighbours (a few sweeps), and
the parts are packed in rows. Node boxes hold their label, so long test ids never
overlap; the page zooms and pans.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from orderdep.core.odmodel import group_key
from orderdep.core.report import Report

# relation -> (legend text, colour)
RELATIONS: dict[str, tuple[str, str]] = {
    "pollutes": ("pollutes (victim fails after it)", "#cf222e"),
    "sets": ("sets up state (brittle needs it first)", "#1a7f37"),
    "cleans": ("cleans up (victim passes again)", "#0969da"),
    "member": ("member of a group", "#8c959f"),
    "writes": ("writes shared state (PRADET)", "#bc4c00"),
    "reads": ("state read by the OD test (PRADET)", "#8250df"),
}
# node kind -> (legend text, column)
KINDS: dict[str, tuple[str, int]] = {
    "victim": ("victim", 4),
    "brittle": ("brittle", 4),
    "od": ("OD test, not classified", 4),
    "polluter": ("polluter", 0),
    "setter": ("state-setter", 0),
    "group": ("polluter group", 1),
    "setter-group": ("state-setter group", 1),
    "root": ("shared state (PRADET root)", 2),
    "cleaner": ("cleaner", 3),
}
# a test with several roles is drawn as the first of these it has
ROLE_ORDER = ("victim", "brittle", "od", "polluter", "setter", "cleaner")

CHAR_WIDTH = 6.8  # px per character of the 11px monospace labels
PAD = 8.0
NODE_HEIGHT = 22.0
ROW = 30.0
COLUMN_GAP = 80.0
PART_GAP = 48.0
MARGIN = 16.0
MAX_LABEL = 56
FRAME_ASPECT = 1.6  # width / height of the page's graph frame on a common screen
PACK_TRIES = 24


@dataclass
class Node:
    key: str
    kind: str
    label: str
    title: str
    roles: list[str]
    dom_id: str = ""
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = NODE_HEIGHT


@dataclass
class Edge:
    source: str  # dom ids
    target: str
    relation: str
    title: str
    path: str


@dataclass
class GraphView:
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0

    def relations(self) -> list[str]:
        used = {e.relation for e in self.edges}
        return [r for r in RELATIONS if r in used]

    def kinds(self) -> list[str]:
        used = {n.kind for n in self.nodes}
        return [k for k in KINDS if k in used]


def short_label(text: str, limit: int = MAX_LABEL) -> str:
    """A test id without its directories (``tests/a/test_x.py::t`` -> ``test_x.py::t``);
    without its file too when longer than ``limit``, then cut at the front."""
    path, sep, rest = text.partition("::")
    if sep:
        text = path.rsplit("/", 1)[-1] + sep + rest
        if len(text) > limit:
            text = rest
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def node_key(test: str) -> str:
    return f"test:{test}"


def build_graph(report: Report) -> nx.MultiDiGraph:
    """The report's relations as a graph: node attrs ``kind``/``roles``/``label``/``title``,
    edge keys are relations, edge attr ``notes`` says which finding each came from."""
    g = nx.MultiDiGraph()
    index = {t: i for i, t in enumerate(report.tests)}

    def test_node(test: str, role: str) -> str:
        key = node_key(test)
        if key not in g:
            g.add_node(key, roles=[], title=test, label=short_label(test), order=index.get(test, 0))
        if role not in g.nodes[key]["roles"]:
            g.nodes[key]["roles"].append(role)
        return key

    def group_node(prefix: str, members: Sequence[str], role: str, what: str) -> str:
        key = f"{prefix}:{group_key(members)}"
        if key not in g:
            title = f"{what} of {len(members)}, in this order: " + " -> ".join(members)
            g.add_node(
                key,
                roles=[prefix],
                kind=prefix,
                title=title,
                label=f"{what} ({len(members)})",
                order=min(index.get(m, 0) for m in members),
            )
            for m in members:
                link(test_node(m, role), key, "member", f"{m} is in this {what}")
        return key

    def link(a: str, b: str, relation: str, note: str) -> None:
        if a == b:
            return
        if g.has_edge(a, b, key=relation):
            notes: list[str] = g.edges[a, b, relation]["notes"]
            if note not in notes:
                notes.append(note)
        else:
            g.add_edge(a, b, key=relation, notes=[note])

    for f in report.od_tests:
        od = test_node(f.test, f.kind or "od")
        for p in f.polluters:
            link(test_node(p, "polluter"), od, "pollutes", f"{f.test} fails after {p}")
        groups = {group_key(grp): grp for grp in f.polluter_groups}
        for grp in f.polluter_groups:
            node = group_node("group", grp, "polluter", "polluter group")
            link(node, od, "pollutes", f"{f.test} fails after this group")
        for polluter, cleaners in f.cleaners.items():
            after = "the group " + " -> ".join(groups[polluter]) if polluter in groups else polluter
            for c in cleaners:
                link(test_node(c, "cleaner"), od, "cleans", f"{c} resets {f.test} after {after}")
        for s in f.state_setters:
            link(test_node(s, "setter"), od, "sets", f"{f.test} passes after {s}")
        for grp in f.state_setter_groups:
            node = group_node("setter-group", grp, "setter", "state-setter group")
            link(node, od, "sets", f"{f.test} passes after this group")
        for dep in pradet_dependencies(f.extras):
            dependee = str(dep.get("dependee", ""))
            if dependee not in index:
                continue
            role = "setter" if dep.get("kind") == "brittle" else "polluter"
            for root in dep.get("roots") or []:
                rkey = f"root:{root}"
                if rkey not in g:
                    g.add_node(rkey, roles=["root"], kind="root", title=str(root),
                               label=short_label(str(root)), order=0)  # fmt: skip
                link(test_node(dependee, role), rkey, "writes", f"{dependee} writes {root}")
                link(rkey, od, "reads", f"{f.test} reads {root}")
    for _, data in g.nodes(data=True):
        if "kind" not in data:
            data["kind"] = next(r for r in ROLE_ORDER if r in data["roles"])
    return g


def pradet_dependencies(extras: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The PRADET dependencies recorded on a finding (its ``"pradet"`` key), if any."""
    pradet = extras.get("pradet")
    deps = pradet.get("dependencies") if isinstance(pradet, dict) else None
    return [d for d in deps if isinstance(d, dict)] if isinstance(deps, list) else []


def layout(g: nx.MultiDiGraph) -> GraphView:
    """Positions for every node and a path for every edge (see the module docstring)."""
    view = GraphView()
    nodes: dict[str, Node] = {}
    for i, (key, data) in enumerate(sorted(g.nodes(data=True), key=_sort_key)):
        roles = [KINDS.get(r, (r, 0))[0] for r in data["roles"]]
        node = Node(key, data["kind"], data["label"], data["title"], roles, dom_id=f"n{i}")
        node.width = round(len(node.label) * CHAR_WIDTH + 2 * PAD, 1)
        nodes[key] = node
    routes: dict[tuple[str, str, str], list[Node]] = {}
    parts = [
        _layout_part(g.subgraph(part), [nodes[k] for k in part], routes)
        for part in nx.weakly_connected_components(g)
    ]
    parts.sort(key=lambda p: (-p[1], -p[0], min(_number(n) for n in p[2] if n.dom_id)))
    view.width, view.height = _pack(parts)
    view.nodes = sorted(nodes.values(), key=_number)
    edges = sorted(g.edges(keys=True, data=True))
    ends = _ports([(nodes[a], nodes[b], routes.get((a, b, rel), [])) for a, b, rel, _ in edges])
    for (a, b, relation, data), (sy, ty) in zip(edges, ends):
        src, dst = nodes[a], nodes[b]
        path = _path(src, dst, routes.get((a, b, relation), []), sy, ty)
        view.edges.append(Edge(src.dom_id, dst.dom_id, relation, "; ".join(data["notes"]), path))
    return view


def _ports(edges: Sequence[tuple[Node, Node, Sequence[Node]]]) -> list[tuple[float, float]]:
    """Where each edge leaves its source and enters its target: the edges at one side of
    a box are spread over its height, in the order of where they come from or go to."""
    ends = [(a.y + a.height / 2, b.y + b.height / 2) for a, b, _ in edges]
    sides: dict[tuple[str, str], list[tuple[float, int, int]]] = {}
    for i, (a, b, route) in enumerate(edges):
        if not route and b.x <= a.x + a.width + 10:
            continue  # an arc back: both ends stay in the middle
        after = route[0].y if route else b.y
        before = route[-1].y if route else a.y
        sides.setdefault((a.key, "out"), []).append((after, i, 0))
        sides.setdefault((b.key, "in"), []).append((before, i, 1))
    nodes = {n.key: n for a, b, _ in edges for n in (a, b)}
    for (key, _), items in sides.items():
        node = nodes[key]
        items.sort()
        for k, (_, i, end) in enumerate(items):
            y = node.y + node.height * (k + 1) / (len(items) + 1)
            ends[i] = (y, ends[i][1]) if end == 0 else (ends[i][0], y)
    return ends


def _number(n: Node) -> int:
    return int(n.dom_id[1:]) if n.dom_id else 1 << 30


def _sort_key(item: tuple[str, dict[str, Any]]) -> tuple[int, int, str]:
    key, data = item
    return (KINDS[data["kind"]][1], data["order"], key)


def _layout_part(
    g: nx.MultiDiGraph, members: list[Node], routes: dict[tuple[str, str, str], list[Node]]
) -> tuple[float, float, list[Node]]:
    """Lay out one connected part at the origin; returns (width, height, nodes).

    An edge that skips columns gets a waypoint (a node without a box) in each column it
    crosses, so it runs in a row of its own instead of through the boxes in between.
    """
    column = {n.key: KINDS[n.kind][1] for n in members}
    present = sorted(set(column.values()))
    place = {c: i for i, c in enumerate(present)}
    columns: dict[int, list[Node]] = {c: [] for c in present}
    for n in sorted(members, key=_number):
        columns[column[n.key]].append(n)
    chains = nx.Graph()
    chains.add_nodes_from(column)
    waypoints: list[Node] = []
    for a, b, relation in sorted(g.edges(keys=True)):
        route: list[Node] = []
        for c in present[place[column[a]] + 1 : place[column[b]]]:
            w = Node(f"~{a}>{b}>{relation}>{c}", "waypoint", "", "", [], width=0.0)
            column[w.key] = c
            columns[c].append(w)
            route.append(w)
        if route:
            routes[(a, b, relation)] = route
            waypoints += route
        nx.add_path(chains, [a, *(w.key for w in route), b])
    for sweep in range(8):
        for c in present if sweep % 2 == 0 else list(reversed(present)):
            _reorder(chains, columns, column, c)
    tallest = max(len(col) for col in columns.values())
    x = 0.0
    for c in present:
        col = columns[c]
        width = max(n.width for n in col)
        top = (tallest - len(col)) * ROW / 2
        for i, n in enumerate(col):
            n.y = top + i * ROW
            if n.kind == "waypoint":
                n.x, n.width = x, width
            else:
                n.x = x + (width - n.width) / 2
        x += width + COLUMN_GAP
    return x - COLUMN_GAP, tallest * ROW - (ROW - NODE_HEIGHT), members + waypoints


def _reorder(
    g: nx.Graph, columns: dict[int, list[Node]], column: Mapping[str, int], c: int
) -> None:
    """Sort column ``c`` by the mean relative position of each node's neighbours elsewhere."""
    rank: dict[str, float] = {}
    for col in columns.values():
        for i, n in enumerate(col):
            rank[n.key] = (i + 0.5) / len(col)
    col = columns[c]
    centre: dict[str, float] = {}
    for i, n in enumerate(col):
        others = [rank[m] for m in g.neighbors(n.key) if column[m] != c]
        centre[n.key] = sum(others) / len(others) if others else (i + 0.5) / len(col)
    col.sort(key=lambda n: centre[n.key])


def _pack(parts: Iterable[tuple[float, float, list[Node]]]) -> tuple[float, float]:
    """Shelf-pack the parts (largest first) in rows; of the row widths tried, keep the one
    whose drawing is largest when fitted into a frame of :data:`FRAME_ASPECT`."""
    items = list(parts)
    if not items:
        return 0.0, 0.0
    narrow = max(w for w, _, _ in items)
    wide = sum(w + PART_GAP for w, _, _ in items)
    best: tuple[float, float] = (0.0, narrow)
    for step in range(PACK_TRIES + 1):
        limit = narrow + (wide - narrow) * (step / PACK_TRIES) ** 2
        w, h = _shelves(items, limit, move=False)
        fitted = min(FRAME_ASPECT / w, 1.0 / h)  # scale in a FRAME_ASPECT x 1 frame
        if fitted > best[0]:
            best = (fitted, limit)
    return _shelves(items, best[1], move=True)


def _shelves(
    items: Sequence[tuple[float, float, list[Node]]], limit: float, move: bool
) -> tuple[float, float]:
    """Rows of parts no wider than ``limit``; the size, and (``move``) the nodes placed."""
    x = y = shelf = right = 0.0
    for w, h, members in items:
        if x > 0 and x + w > limit:
            x, y, shelf = 0.0, y + shelf + PART_GAP, 0.0
        if move:
            for n in members:
                n.x, n.y = round(n.x + x + MARGIN, 1), round(n.y + y + MARGIN, 1)
        x += w + PART_GAP
        shelf = max(shelf, h)
        right = max(right, x - PART_GAP)
    return round(right + 2 * MARGIN, 1), round(y + shelf + 2 * MARGIN, 1)


def _curve(x1: float, y1: float, x2: float, y2: float) -> str:
    dx = max(12.0, (x2 - x1) / 2)
    return f"C{x1 + dx:.1f},{y1:.1f} {x2 - dx:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"


def _path(a: Node, b: Node, waypoints: Sequence[Node], sy: float, ty: float) -> str:
    """From ``a``'s right side (at ``sy``) to ``b``'s left side (at ``ty``) through the
    waypoints' rows; to ``b``'s right side in an arc when ``b`` is not right of ``a``."""
    sx = a.x + a.width
    if not waypoints and b.x <= sx + 10:
        tx = b.x + b.width
        far = max(sx, tx) + 40.0 + abs(ty - sy) / 4
        return f"M{sx:.1f},{sy:.1f} C{far:.1f},{sy:.1f} {far:.1f},{ty:.1f} {tx:.1f},{ty:.1f}"
    out = [f"M{sx:.1f},{sy:.1f}"]
    for w in waypoints:
        wy = w.y + NODE_HEIGHT / 2
        out += [_curve(sx, sy, w.x, wy), f"L{w.x + w.width:.1f},{wy:.1f}"]
        sx, sy = w.x + w.width, wy
    out.append(_curve(sx, sy, b.x, ty))
    return " ".join(out)
