"""The HTML report page: one self-contained file (CSS, JS and data inlined).

:func:`render_html` turns :class:`~orderdep.shells.html.inputs.ReportInputs` into the
page with Jinja2 (``templates/report.html.j2``, autoescaped); patches are highlighted
with Pygments. The page's script (``static/report.js``) only adds zoom, pan, search and
table sorting: everything is readable without it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Optional

import jinja2
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.util import ClassNotFound

from orderdep import __version__
from orderdep.core.promise import shortfalls
from orderdep.core.report import FLAKE_RATE_KEYS, ODFinding, Report
from orderdep.shells.explain import sentence
from orderdep.shells.html.graph import (
    KINDS,
    RELATIONS,
    GraphView,
    build_graph,
    layout,
    node_key,
    pradet_dependencies,
    short_label,
)
from orderdep.shells.html.inputs import ReportInputs
from orderdep.shells.summary import stats_line

PYGMENTS_STYLE = "friendly"


@dataclass
class Row:
    """One OD test: its table row and its details section."""

    number: int
    finding: ODFinding
    node: str  # the graph node's DOM id
    sentence: str
    roots: list[str]
    cleaners: list[tuple[str, list[str]]]  # (after polluter or group, cleaners)
    reproduce: Optional[str]
    evidence: list[tuple[str, str]]
    pradet: list[dict[str, Any]]
    fix: Optional[dict[str, Any]]
    diff: Optional[Markup]
    partners: int = 0

    @property
    def anchor(self) -> str:
        return f"od-{self.number}"

    @property
    def kind(self) -> str:
        return self.finding.kind or "unclassified"

    @property
    def cleaner_count(self) -> int:
        return len({c for _, cs in self.cleaners for c in cs})


@dataclass
class Card:
    label: str
    value: str
    note: str = ""
    tone: str = ""


@dataclass
class Page:
    title: str
    report: Report
    inputs: ReportInputs
    graph: GraphView
    rows: list[Row]
    cards: list[Card]
    stats: str
    extra: dict[str, Any] = field(default_factory=dict)
    # What the promised search did not do (core.promise); empty when it ran whole.
    shortfalls: list[str] = field(default_factory=list)


def breakable(text: str, dots: bool = False) -> Markup:
    """``text`` escaped, with line-break opportunities after ``::`` and ``/`` (and ``.``)."""
    out = str(escape(text)).replace("::", "::<wbr>").replace("/", "/<wbr>")
    return Markup(out.replace(".", ".<wbr>") if dots else out)


def percent(rate: Optional[float]) -> str:
    return "–" if rate is None else f"{rate * 100:.1f}%"


def signed(rate: Optional[float]) -> str:
    return "–" if rate is None else f"{rate * 100:+.1f}%"


def highlight_diff(diff: str) -> Markup:
    """A unified diff as HTML: added/removed lines marked, code highlighted by its file's
    language (guessed from the ``+++`` name)."""
    formatter = HtmlFormatter(nowrap=True, style=PYGMENTS_STYLE)
    lexer: Any = TextLexer()
    out: list[str] = []
    for line in diff.splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            name = line[4:].split("\t")[0].strip()
            if line.startswith("+++ ") and name != "/dev/null":
                try:
                    lexer = get_lexer_for_filename(name.removeprefix("b/"), stripnl=False)
                except ClassNotFound:
                    lexer = TextLexer()
            out.append(f'<span class="dl meta">{escape(line)}</span>')
            continue
        if line.startswith(("diff ", "index ", "new file", "deleted file")):
            out.append(f'<span class="dl meta">{escape(line)}</span>')
            continue
        if line.startswith("@@"):
            out.append(f'<span class="dl hunk">{escape(line)}</span>')
            continue
        sign, code = (line[:1], line[1:]) if line[:1] in "+- " and line else (" ", line)
        css = {"+": "add", "-": "del"}.get(sign, "ctx")
        body = str(highlight(code, lexer, formatter)).rstrip("\n") if code else ""
        out.append(f'<span class="dl {css}"><span class="sign">{escape(sign)}</span>{body}</span>')
    # one block per line: no newlines between them (copying text still gives lines)
    return Markup('<pre class="diff highlight">' + "".join(out) + "</pre>")


def _cards(report: Report, inputs: ReportInputs) -> list[Card]:
    s = report.stats
    kinds = [f.kind for f in report.od_tests]
    victims, brittles = kinds.count("victim"), kinds.count("brittle")
    unknown = len(kinds) - victims - brittles
    od_note = f"{victims} victim(s) · {brittles} brittle(s)"
    if unknown:
        od_note += f" · {unknown} unclassified"
    cards = [
        Card("tests", str(len(report.tests)), "in the suite"),
        Card("OD tests", str(len(kinds)), od_note, "bad" if kinds else "good"),
        Card("ND tests", str(len(report.nd_tests)), "outcome changed within one order",
             "warn" if report.nd_tests else ""),
        Card("NIO tests", str(len(report.nio_tests)), "fail when run twice in one process",
             "warn" if report.nio_tests else ""),
        Card("orders", f"{s.orders_run:,}", " + ".join(s.strategies) or "no strategy"),
        Card("executions", f"{s.test_executions:,}", "tests run in all"),
        Card("time", f"{s.wall_seconds:.1f} s", "wall clock"),
        Card("seed", str(s.seed), "--seed reproduces it"),
    ]  # fmt: skip
    if report.always_failing:
        cards.insert(4, Card("always failing", str(len(report.always_failing)), "also alone"))
    fixed = sum(1 for f in report.od_tests if f.test in inputs.patches)
    if fixed or inputs.fixes:
        tone = "good" if fixed == len(kinds) else "warn"
        cards.append(Card("verified patches", f"{fixed}/{len(kinds)}", "orderdep fix", tone))
    return cards


def _row(number: int, f: ODFinding, inputs: ReportInputs, graph: GraphView) -> Row:
    deps = pradet_dependencies(f.extras)
    fix = inputs.fixes.get(f.test)
    roots = [str(r) for d in deps for r in d.get("roots") or []]
    if fix is not None:
        roots += [str(r) for r in fix.get("polluted") or []]
    groups = {"+".join(g): g for g in f.polluter_groups}
    cleaners = [
        (" → ".join(short_label(t) for t in groups[k]) if k in groups else short_label(k), cs)
        for k, cs in f.cleaners.items()
    ]
    node = next((n.dom_id for n in graph.nodes if n.key == node_key(f.test)), "")
    diff = inputs.patches.get(f.test)
    partners = len(f.polluters) + len(f.polluter_groups) + len(f.state_setters)
    return Row(
        number=number,
        finding=f,
        node=node,
        sentence=sentence(f),
        roots=list(dict.fromkeys(roots)),
        cleaners=cleaners,
        reproduce=inputs.reproduce.get(f.test),
        evidence=inputs.evidence.get(f.test, []),
        pradet=deps,
        fix=fix,
        diff=highlight_diff(diff) if diff is not None else None,
        partners=partners + len(f.state_setter_groups),
    )


def build_page(inputs: ReportInputs) -> Page:
    report = inputs.report
    graph = layout(build_graph(report))
    index = {t: i for i, t in enumerate(report.tests)}
    findings = sorted(report.od_tests, key=lambda f: index.get(f.test, len(index)))
    rows = [_row(i + 1, f, inputs, graph) for i, f in enumerate(findings)]
    name = report.project.rstrip("/").rsplit("/", 1)[-1] or report.project
    return Page(
        title=f"orderdep report: {name}",
        report=report,
        inputs=inputs,
        graph=graph,
        rows=rows,
        cards=_cards(report, inputs),
        stats=stats_line(report),
        extra={"pradet": report.extras.get("pradet"), "evaluation": inputs.evaluation},
        shortfalls=shortfalls(report),
    )


def _static(name: str) -> str:
    return (resources.files("orderdep.shells.html") / "static" / name).read_text("utf-8")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("orderdep.shells.html", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["percent"] = percent
    env.filters["signed"] = signed
    env.filters["short"] = short_label
    env.filters["wbr"] = breakable
    return env


def render_html(inputs: ReportInputs) -> str:
    """The whole page as one string."""
    page = build_page(inputs)
    css = _static("report.css") + HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(".highlight")
    data = json.dumps(inputs.report.to_json(), ensure_ascii=False, sort_keys=False)
    template = _environment().get_template("report.html.j2")
    return template.render(
        page=page,
        css=Markup(css),
        script=Markup(_static("report.js")),
        # "<", ">" and "&" never occur outside JSON strings; escaped, no tag can end the script
        report_json=Markup(
            data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        ),
        relations=RELATIONS,
        kinds=KINDS,
        rate_keys=FLAKE_RATE_KEYS,
        version=__version__,
    )
