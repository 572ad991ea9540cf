"""The corpus runner's section of docs/benchmarks.md: one row per project and run, a
totals row per run against the targets; rows of earlier runs are kept as they came out."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from benchdoc import DOC, table, write_section
from realdoc import earlier_rows, notes_of, shown_argv

SECTION = "Pre-registered IDoFT sample"
HEADERS = ["run", "orderdep", "project", "status", "tests", "suite (s)", "set-up (s)",
           "rows reproduced by hand", "confirmed now", "found", "right kind",
           "right partner", "OD found", "unlisted: confirmed / checked", "detect exit",
           "wall (s)", "wall / budget", "fix exit", "repaired", "patch holds",
           "changed lines"]  # fmt: skip
# the targets on the first run: share of confirmed rows (holding: repaired rows)
TARGETS = {"found": 0.95, "right kind": 0.95, "right partner": 0.90, "repaired": 0.80}


# a reason longer than this is cut in its cell (its start says what went wrong)
MAX_WHY = 300


def one_line(text: str) -> str:
    """``text`` fit for a table cell: one line (a traceback's lines joined), ``|``
    escaped, cut at :data:`MAX_WHY` characters."""
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= MAX_WHY else flat[: MAX_WHY - 3] + "..."


def cells(row: dict[str, Any], run: str, who: str, budget: float) -> list[object]:
    status = row["status"] + (f": {one_line(row['why'])}" if row["why"] else "")
    if row["status"] != "scored":
        return [run, who, row["label"], status, *["-"] * (len(HEADERS) - 4)]
    checked = row["unlisted"] - row["unlisted_unchecked"]
    wall = row["detect_wall"]
    fixed = row["fix_exit"] is not None
    return [run, who, row["label"], status, row["tests"], f"{row['suite_s']:.1f}",
            f"{row['setup_s']:.0f}", f"{row['by_hand']} of {row['rows']}", row["confirmed"],
            row["found"], row["right_kind"], row["right_partner"], row["od_found"],
            f"{row['unlisted_confirmed']} / {checked}" + (
                f" (+{row['unlisted_unchecked']} unchecked)" if row["unlisted_unchecked"] else ""),
            row["detect_exit"], f"{wall:.0f}", f"{wall / budget:.2f}",
            row["fix_exit"] if fixed else "-", row["repaired"] if fixed else "-", row["holds"],
            "-" if row["changed_lines"] is None else row["changed_lines"]]  # fmt: skip


def totals(rows: list[dict[str, Any]], run: str, who: str, budget: float) -> list[object]:
    scored = [r for r in rows if r["status"] == "scored"]
    confirmed = sum(r["confirmed"] for r in scored)

    def share(key: str) -> str:
        n = sum(r[key] for r in scored)
        pct = f" ({100 * n / confirmed:.0f}%)" if confirmed else ""
        return f"{n} of {confirmed}{pct}"

    unlisted = sum(r["unlisted"] - r["unlisted_unchecked"] for r in scored)
    false = unlisted - sum(r["unlisted_confirmed"] for r in scored)
    over = sum(1 for r in scored if r["detect_wall"] > budget * 1.1)
    lines = [r["changed_lines"] for r in scored if r["changed_lines"] is not None]
    per_test = [r["changed_lines"] / r["repaired"] for r in scored
                if r["changed_lines"] is not None and r["repaired"]
                for _ in range(r["repaired"])]  # fmt: skip
    repeats = [r.get("repeated_blocks") for r in scored if r["changed_lines"]]
    said = [f"median {statistics.median(per_test):.1f} per repaired row"] if per_test else []
    if None not in repeats:
        said.append(f"{sum(r or 0 for r in repeats)} repeated blocks")
    quality = f"{sum(lines)}" + (f" ({'; '.join(said)})" if said else "")
    return [run, who, f"**total: {len(scored)} scored of {len(rows)}**",
            f"{over} over budget + 10%", sum(r["tests"] for r in scored), "", "",
            sum(r["by_hand"] for r in scored), confirmed, share("found"), share("right_kind"),
            share("right_partner"), sum(r["od_found"] for r in scored),
            f"{unlisted - false} / {unlisted} ({false} not confirmed)", "", "", "", "",
            share("repaired"), sum(1 for r in scored if r["holds"] == "yes"),
            quality]  # fmt: skip


def write_rows(manifest: dict[str, Any], path: Path, rows: list[dict[str, Any]], run: str,
               who: str, opts: argparse.Namespace) -> None:  # fmt: skip
    section = manifest.get("section", SECTION)
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    new = [cells(r, run, who, opts.budget) for r in rows]
    new.append(totals(rows, run, who, opts.budget))
    body = (
        f"Each project of the manifest (`benchmarks/manifests/{path.name}`: public "
        "facts only) set up in a venv of its own as the manifest says, its rows confirmed "
        "again with plain pytest (one fresh process per order; *rows reproduced by hand*: "
        "those the manifest found reproducing, of all its rows), then `orderdep detect . "
        f"--classify --budget {opts.budget:g} --seed {opts.seed}` in the activated venv and "
        "`orderdep fix . --apply --budget B`, both in one fresh copy with its own results "
        "store, as a user runs them in one tree (runs before 2026-11-29 13:00 UTC ran fix "
        "in a second copy, where it checked the fork runner again). *found*, *right kind*, *right "
        "partner* (a known one, or one plain pytest confirms), *repaired* (under plain "
        "pytest: the victim after each partner that failed it, a brittle alone) count "
        "confirmed rows; *patch holds*: all repaired and the original order's outcomes "
        "unchanged. *unlisted*: OD tests orderdep reports that the manifest does not list, "
        "checked with plain pytest (a finding plain pytest does not confirm is a false OD "
        "test). Targets on the first run: found and right kind 95%, right partner 90%, "
        "repaired 80%, no false OD test, every project within its budget + 10%. Rows are "
        "kept as they came out; later runs add rows.\n\n"
        "Reproduce: clone each project's `repo` into `CLONES/OWNER+NAME`, then "
        f"`python benchmarks/corpus.py --manifest benchmarks/manifests/{path.name} --work DIR "
        "--clones CLONES --label LABEL` "
        "(`--project NAME` for one; `--again` to rerun a kept result).\n\n"
        + table(HEADERS, [*earlier_rows(text, section, HEADERS), *new])
        + notes_of(text, section)
    )
    write_section(section, body, argv=shown_argv())
