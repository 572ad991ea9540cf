"""``orderdep detect --classify --budget B`` (and ``pradet``, ``fix``) on real projects.

Each project of the manifest (``benchmarks/manifests/sdists.json``, public facts only:
name, ``name==version`` of a PyPI sdist or ``repo`` and ``commit`` of a public git
repository, Python version, extra requirements, pytest arguments, install mode, known OD
tests with their partners) is set up as its users do, in a work directory outside this
repository (``realsetup.py``: a venv of its own, the project installed ``editable`` or
``wheel``, orderdep from this checkout or from ``--orderdep-rev REV``), then:

1. the original order with plain pytest (``python -m pytest -p no:randomly``), timed;
2. each known relation confirmed with plain pytest, one fresh process per order: the
   victim passes alone and fails after a polluter (the brittle fails alone and passes
   after a state-setter); kept only when both hold;
3. ``orderdep detect . --classify --budget B --seed S`` as a user types it (only the
   report and store paths added, and ``--pytest-arg`` for the manifest's pytest
   arguments), timed; the report scored: known OD tests found, with a known partner,
   wall time against the budget, exit code, OD tests found and classified;
4. ``--pradet``: ``orderdep pradet . --budget B`` (its collection file in the work
   directory, made afresh), scored the same way;
5. ``--fix``: on a fresh copy of the project, ``orderdep fix . --apply`` on detect's
   report (the copy installed into the venv in place of the project while it runs), then
   plain pytest in the copy: each confirmed victim passes after the
   polluters that failed it (a brittle passes alone), and the original order's outcomes
   are those of the unpatched project ("patch holds" when both are true).

Usage: python benchmarks/sdist_detect.py [--project NAME ...] [--budget 300] [--seed 1]
       [--work DIR] [--git-dir NAME=PATH ...] [--pradet] [--skip-detect] [--fix]
       [--manifest FILE] [--orderdep-rev REV] [--label TEXT] [--no-doc]
``--manifest`` takes another manifest of the same schema (the corpus manifests, for
projects from git repositories: their clones named with ``--git-dir``); ``--skip-detect``
with ``--pradet`` runs PRADET alone (the detect columns read "-").
Writes the sections "Real projects from PyPI sdists" and "Real projects from git
repositories" of docs/benchmarks.md (rows are added per run, with their date and label;
earlier rows are kept as they came out).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table
from realdoc import HEADERS, SECTIONS, write_doc
from realsetup import (
    fresh_copy,
    install_project,
    label,
    orderdep_tree,
    outcomes,
    plain,
    scratch_dir,
    set_up,
    sh,
)

MANIFEST = Path(__file__).resolve().parent / "manifests" / "sdists.json"


@dataclass
class Known:
    """A manifest row confirmed by hand: the partners that made it fail (or pass)."""

    test: str
    kind: str
    partners: list[str]


@dataclass
class Scored:
    tests: int = 0
    suite: float = 0.0
    wall: float = 0.0
    exit_code: int = 0
    found: int = 0
    classified: int = 0
    confirmed: int = 0
    known_found: int = 0
    with_polluter: int = 0
    pradet: list[object] = field(default_factory=lambda: ["-", "-", "-"])
    fix: list[object] = field(default_factory=lambda: ["-", "-", "-"])
    lines: list[str] = field(default_factory=list)


def confirm(python: Path, source: Path, row: dict[str, Any], args: list[str]) -> Optional[Known]:
    """A victim passes alone and fails after a polluter; a brittle fails alone and passes
    after a state-setter (plain pytest, one fresh process per order)."""
    test, brittle = row["test"], row.get("kind") == "brittle"
    partners = row.get("state_setters" if brittle else "polluters") or []
    alone = plain(python, source, [test], args).returncode == 0
    if alone == brittle:
        return None
    hits = [
        p for p in partners if (plain(python, source, [p, test], args).returncode == 0) == brittle
    ]
    return Known(test, "brittle" if brittle else "victim", hits) if hits else None


def scored_report(path: Path, known: list[Known]) -> tuple[dict[str, Any], int, int]:
    """The report, the known OD tests it names, and those with a known partner."""
    data = json.loads(path.read_text()) if path.exists() else {"tests": [], "od_tests": []}
    findings = {f["test"]: f for f in data.get("od_tests", [])}
    found = with_partner = 0
    for row in known:
        finding = findings.get(row.test)
        if finding is None:
            continue
        found += 1
        keys = (
            ("state_setters", "state_setter_groups")
            if row.kind == "brittle"
            else ("polluters", "polluter_groups")
        )
        named = set(finding.get(keys[0]) or []) | {t for g in finding.get(keys[1]) or [] for t in g}
        with_partner += bool(named & set(row.partners))
    return data, found, with_partner


def orderdep_cmd(
    python: Path, verb: list[str], work: Path, tag: str, args: list[str], store: bool = True
) -> list[str]:
    """The command as typed, with its report (and store) in the work directory."""
    report, db = work / f"{tag}-report.json", work / f"{tag}-store.db"
    for stale in (report, *(db.with_name(db.name + end) for end in ("", "-wal", "-shm", ".lock"))):
        stale.unlink(missing_ok=True)  # a new store each run, not the last run's results
    where = ["--report", str(report), *(["--store", str(db)] if store else [])]
    return [str(python.parent / "orderdep"), *verb, *where, *[f"--pytest-arg={a}" for a in args]]


GNU_TIME = Path("/usr/bin/time")


def peak_mb(work: Path, tag: str) -> Optional[float]:
    """The largest resident set of the run ``tag`` and of the processes it waited for, in
    MB (GNU time's ``%M``), when it was measured."""
    path = work / f"{tag}.maxrss"
    text = path.read_text().strip().splitlines() if path.exists() else []
    return int(text[-1]) / 1024 if text and text[-1].isdigit() else None


def run_logged(cmd: list[str], cwd: Path, work: Path, tag: str, budget: float) -> tuple[int, float]:
    began = time.monotonic()
    (work / f"{tag}.maxrss").unlink(missing_ok=True)
    if GNU_TIME.exists():  # its peak memory as well
        cmd = [str(GNU_TIME), "-f", "%M", "-o", str(work / f"{tag}.maxrss"), *cmd]
    run = sh(cmd, cwd=cwd, timeout=budget * 3 + 600)
    wall = time.monotonic() - began
    (work / f"{tag}.out").write_text(run.stdout + "\n--- stderr ---\n" + run.stderr)
    return run.returncode, wall


def score(project: dict[str, Any], opts: argparse.Namespace, work: Path, orderdep: Path) -> Scored:
    source, python = set_up(project, work, opts.git_dirs, orderdep)
    args = list(project.get("pytest_args") or [])
    out = Scored()
    began = time.monotonic()
    baseline = plain(python, source, [], args)
    out.suite = time.monotonic() - began
    before = outcomes(baseline)
    out.lines.append(f"original order (plain pytest, {out.suite:.1f} s): "
                     f"{baseline.stdout.strip().splitlines()[-1]}")  # fmt: skip
    known = [k for k in (confirm(python, source, r, args) for r in project.get("known", [])) if k]
    out.confirmed = len(known)
    b = f"{opts.budget:g}"
    # the fork runner's check is cached next to the report, once per code version: every
    # run pays for it, so rows of one project compare alike
    (work / "fidelity.json").unlink(missing_ok=True)
    if not opts.skip_detect:
        cmd = orderdep_cmd(python, ["detect", ".", "--classify", "--budget", b, "--seed",
                                    str(opts.seed)], work, "detect", args)  # fmt: skip
        out.exit_code, out.wall = run_logged(cmd, source, work, "detect", opts.budget)
        data, out.known_found, out.with_polluter = scored_report(work / "detect-report.json", known)
        out.tests = len(data["tests"])
        out.found = len(data["od_tests"])
        out.classified = sum(1 for f in data["od_tests"] if f.get("kind"))
        out.lines.append(f"detect: exit {out.exit_code} in {out.wall:.0f} s, "
                         f"{out.found} OD tests; see {work / 'detect.out'}")  # fmt: skip
    if opts.pradet:
        # its collection too is this run's, not one an earlier run left in the project
        graph = work / "pradet-graph.json"
        graph.unlink(missing_ok=True)
        cmd = orderdep_cmd(python, ["pradet", ".", "--budget", b, "--graph", str(graph)],
                           work, "pradet", args)  # fmt: skip
        code, wall = run_logged(cmd, source, work, "pradet", opts.budget)
        data, _, hits = scored_report(work / "pradet-report.json", known)
        out.tests = out.tests or len(data["tests"])
        out.pradet = [code, f"{wall:.0f}", f"{hits} of {out.confirmed}"]
        peak = peak_mb(work, "pradet")
        memory = f", at most {peak:.0f} MB resident" if peak is not None else ""
        out.lines.append(
            f"pradet: exit {code} in {wall:.0f} s{memory}; {hits} known with a partner"
        )
    if opts.fix:
        out.fix = repair(python, project, source, work, known, before, args, opts.budget)
        out.lines.append(f"fix: exit {out.fix[0]}, repaired {out.fix[1]}, holds: {out.fix[2]}")
    return out


def repair(
    python: Path, project: dict[str, Any], source: Path, work: Path, known: list[Known],
    before: dict[str, str], args: list[str], budget: float,
) -> list[object]:  # fmt: skip
    """``orderdep fix . --apply`` on a fresh copy with detect's report, then plain pytest.

    The copy is the venv's project while this runs (an editable install would otherwise
    import the original tree); the original is installed again afterwards."""
    copy = fresh_copy(source, work / "fix-copy")
    cmd = orderdep_cmd(python, ["fix", ".", "--apply"], work, "fix", args, store=False)
    report = json.loads((work / "detect-report.json").read_text())
    report["project"] = str(copy)  # the same report, for the copy it now describes
    (work / "fix-report.json").write_text(json.dumps(report))
    install_project(python, project, copy)
    try:
        code, _ = run_logged(cmd, copy, work, "fix", budget)
        repaired = 0
        for row in known:
            if row.kind == "brittle":
                repaired += plain(python, copy, [row.test], args).returncode == 0
            else:
                repaired += all(plain(python, copy, [p, row.test], args).returncode == 0
                                for p in row.partners)  # fmt: skip
        after = outcomes(plain(python, copy, [], args))
    finally:
        install_project(python, project, source)
    same = after == before
    holds = "yes" if repaired == len(known) and known and same else "no"
    if not same:
        changed = sorted(t for t in set(before) | set(after) if before.get(t) != after.get(t))
        holds += f" ({len(changed)} outcomes changed)"
        lines = [f"{t}: {before.get(t, 'absent')} -> {after.get(t, 'absent')}" for t in changed]
        (work / "fix-changed.txt").write_text("\n".join(lines) + "\n")
    return [code, f"{repaired} of {len(known)}", holds]


def row_of(project: dict[str, Any], s: Scored, opts: argparse.Namespace, who: str) -> list[object]:
    c = s.confirmed
    detect: list[object] = (
        ["-"] * 5 + [f"{c} of {len(project.get('known', []))}", "-", "-"]
        if opts.skip_detect
        else [f"{s.wall:.0f}", f"{s.wall / opts.budget:.2f}", s.exit_code, s.found, s.classified,
              f"{c} of {len(project.get('known', []))}", f"{s.known_found} of {c}",
              f"{s.with_polluter} of {c}"]
    )  # fmt: skip
    return [opts.run_label, who, label(project), project.get("install", "editable"),
            project.get("python") or f"{sys.version_info[0]}.{sys.version_info[1]}", s.tests,
            f"{s.suite:.1f}", f"{opts.budget:g}", *detect, *s.pradet, *s.fix]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", default=[])
    parser.add_argument("--budget", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--git-dir",
        action="append",
        default=[],
        type=_name_path,
        metavar="NAME=PATH",
        help="a clone of the project NAME's repository",
    )
    parser.add_argument("--pradet", action="store_true", help="also run orderdep pradet")
    parser.add_argument(
        "--skip-detect", action="store_true", help="no orderdep detect (with --pradet: PRADET only)"
    )
    parser.add_argument(
        "--manifest", type=Path, default=MANIFEST, help="a manifest of the same schema"
    )
    parser.add_argument("--fix", action="store_true", help="also orderdep fix --apply, checked")
    parser.add_argument(
        "--orderdep-rev",
        default=None,
        metavar="REV",
        help="install orderdep from this revision of this repository",
    )
    parser.add_argument("--label", default="")
    parser.add_argument("--no-doc", action="store_true")
    opts = parser.parse_args()
    opts.git_dirs = dict(opts.git_dir)
    if opts.skip_detect and opts.fix:
        parser.error("--fix repairs what detect reported: it cannot go with --skip-detect")
    manifest = json.loads(opts.manifest.read_text())
    chosen = [p for p in manifest["projects"] if not opts.project or p["name"] in opts.project]
    base = opts.work or Path(__import__("tempfile").mkdtemp(prefix="orderdep-sdists-"))
    orderdep, who = orderdep_tree(opts.orderdep_rev, scratch_dir())
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    opts.run_label = f"{stamp} {opts.label}".strip()
    rows: dict[str, list[list[object]]] = {kind: [] for kind in SECTIONS}
    for project in chosen:
        work = base / project["name"]
        work.mkdir(parents=True, exist_ok=True)
        s = score(project, opts, work, orderdep)
        print(f"== {label(project)} (orderdep {who})", *s.lines, sep="\n")
        kind = "sdist" if "spec" in project else "git"
        rows[kind].append(row_of(project, s, opts, who))
        print(table(HEADERS, rows[kind][-1:]))
    if not opts.no_doc:
        for kind, new in rows.items():
            if new:
                write_doc(kind, new)


def _name_path(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, Path(path)


if __name__ == "__main__":
    main()
