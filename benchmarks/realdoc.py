"""The sections of docs/benchmarks.md that ``sdist_detect.py`` writes: one for projects
from PyPI sdists, one for projects from git repositories; rows are added per run and
earlier rows kept as they came out (mapped onto today's columns by name)."""

from __future__ import annotations

import sys

from benchdoc import DOC, table, write_section

SECTIONS = {"sdist": "Real projects from PyPI sdists", "git": "Real projects from git repositories"}
HEADERS = ["run", "orderdep", "project", "install", "python", "tests", "suite (s)",
           "budget (s)", "wall (s)", "wall / budget", "exit", "OD found", "classified",
           "known confirmed", "known found", "with a known polluter", "pradet exit",
           "pradet wall (s)", "pradet: known with a polluter", "fix exit", "known repaired",
           "patch holds"]  # fmt: skip


ABOUT = {
    "sdist": "Each project set up from its PyPI sdist",
    "git": "Each project set up from its public git repository at the commit shown "
    "(`git archive` of a clone named with `--git-dir NAME=CLONE`)",
}


def write_doc(kind: str, rows: list[list[object]]) -> None:
    section = SECTIONS[kind]
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    git = " --git-dir NAME=CLONE" if kind == "git" else ""
    body = (
        f"{ABOUT[kind]}, in a venv of its own with the Python shown, installed as its "
        "contributing guide says (`editable`: `pip install -e .`); `orderdep detect . "
        "--classify --budget B --seed S` run as typed (`--pytest-arg` only for the "
        "manifest's pytest arguments). Known OD tests: confirmed by hand with plain pytest "
        "first (victim alone passes, after its polluter fails; a brittle the other way round, "
        "with a state-setter, which the polluter columns then count). *pradet*: `orderdep pradet . "
        "--budget B`. *fix*: `orderdep fix . --apply` on a fresh copy with detect's report "
        "(the copy installed into the venv in the project's place while it runs), "
        "then plain pytest in the copy: *known repaired* counts victims that now pass after "
        "every polluter that failed them; *patch holds* when all do and the original "
        "order's outcomes are unchanged. *orderdep*: the revision installed into the "
        "project's venv (`--orderdep-rev REV`, else this checkout). Rows are kept as they "
        "came out; later runs add rows; `-`: not run in that row.\n\n"
        "Reproduce a row: "
        + (
            "`git clone https://github.com/OWNER/REPO CLONE` (the manifest's `repo`), then "
            if kind == "git"
            else ""
        )
        + f"`python benchmarks/sdist_detect.py --project NAME{git} --budget 120 --pradet "
        "--fix --label LABEL`, with `--orderdep-rev REV` for a row whose *orderdep* is that "
        "revision (NAME: the manifest's `name`; the last run's exact command is above).\n\n"
        + table(HEADERS, [*earlier_rows(text, section, HEADERS), *rows])
        + notes_of(text, section)
    )
    write_section(section, body, argv=shown_argv())


NOTES = ("<!-- notes -->", "<!-- /notes -->")


def notes_of(text: str, section: str) -> str:
    """The section's notes on its rows (written by hand between ``NOTES``), kept as they are."""
    part = _section(text, section)
    if NOTES[0] not in part or NOTES[1] not in part:
        return ""
    notes = part.split(NOTES[0], 1)[1].split(NOTES[1], 1)[0]
    return f"\n\n{NOTES[0]}{notes}{NOTES[1]}"


def _section(text: str, section: str) -> str:
    begin, end = f"<!-- begin {section} -->", f"<!-- end {section} -->"
    return text.split(begin, 1)[1].split(end, 1)[0] if begin in text else ""


def shown_argv() -> list[str]:
    """``sys.argv`` with local paths (work and clone directories) as placeholders."""
    out: list[str] = []
    hide = False
    for a in sys.argv:
        if hide:
            shown = {"--work": "DIR", "--clones": "CLONES"}.get(out[-1])
            out.append(shown or a.split("=", 1)[0] + "=CLONE")
            hide = False
            continue
        hide = a in ("--work", "--git-dir", "--clones")
        if a.startswith("--work="):
            a = "--work=DIR"
        elif a.startswith("--clones="):
            a = "--clones=CLONES"
        elif a.startswith("--git-dir="):
            a = "--git-dir=" + a.split("=", 2)[1] + "=CLONE"
        out.append(a)
    return out


def earlier_rows(text: str, section: str, headers: list[str]) -> list[list[object]]:
    """Rows already in the section, mapped onto today's columns by name ("-": absent)."""
    part = _section(text, section).split(NOTES[0], 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("| ")]
    if not lines:
        return []
    headers = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    out: list[list[object]] = []
    for line in lines[1:]:
        cells = dict(zip(headers, (c.strip() for c in line.strip().strip("|").split("|"))))
        out.append([cells.get(h, "-") for h in headers])
    return out
