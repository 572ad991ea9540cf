"""``orderdep detect --classify --budget B`` on real projects set up from their PyPI sdists.

Each project of the manifest (``benchmarks/manifests/sdists.json``: name, ``name==version``,
extras, install mode, known OD tests with their partners, all public facts) is set up as
its users do, in a work directory outside this repository:

1. ``pip download --no-binary :all: --no-deps SPEC``, unpacked;
2. a venv of its own, the project installed ``editable`` (``pip install -e .[extras]``,
   as contributing guides say) or ``wheel`` (``pip install .[extras]``, as tox does), and
   orderdep installed into it from this checkout;
3. the original order with plain pytest (``python -m pytest -p no:randomly``);
4. each known relation confirmed with plain pytest, one fresh process per order: the
   victim passes alone and fails after its polluter (kept only when both hold);
5. ``orderdep detect DIR --classify --budget B --seed S`` as a user types it (no other
   option), timed; the report scored: known victims found, with a known polluter, wall
   time against the budget, exit code, OD tests found and classified.

Usage: python benchmarks/sdist_detect.py [--project NAME ...] [--budget 300] [--seed 1]
       [--work DIR] [--label TEXT] [--no-doc]
Writes the section "Real projects from PyPI sdists" of docs/benchmarks.md (rows are
added per run, with their date and label; earlier rows are kept as they came out).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import DOC, table, write_section

REPO = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "manifests" / "sdists.json"
SECTION = "Real projects from PyPI sdists"
HEADERS = ["run", "project", "install", "tests", "budget (s)", "wall (s)", "wall / budget",
           "exit", "OD found", "classified", "known confirmed", "known found",
           "with a known polluter"]  # fmt: skip


@dataclass
class Scored:
    tests: int = 0
    wall: float = 0.0
    exit_code: int = 0
    found: int = 0
    classified: int = 0
    confirmed: int = 0
    known_found: int = 0
    with_polluter: int = 0
    lines: list[str] = field(default_factory=list)


def sh(
    cmd: list[str], cwd: Optional[Path] = None, timeout: float = 1800
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def set_up(project: dict[str, Any], work: Path) -> tuple[Path, Path]:
    """The unpacked sdist and its venv's python (made once per work directory)."""
    name, version = project["spec"].split("==")
    source = work / f"{name}-{version}"
    python = work / "venv" / "bin" / "python"
    if python.exists() and source.exists():
        _install_orderdep(python, source)  # this checkout's code, whatever the last run had
        return source, python
    got = sh([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
              "-d", str(work), project["spec"]])  # fmt: skip
    if got.returncode:
        raise SystemExit(f"cannot download {project['spec']}: {got.stderr.strip()[-500:]}")
    archive = next(work.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    sh([sys.executable, "-m", "venv", str(work / "venv")])
    extras = f"[{','.join(project.get('extras') or [])}]" if project.get("extras") else ""
    target = f".{extras}"
    mode = ["-e", target] if project.get("install", "editable") == "editable" else [target]
    done = sh([str(python), "-m", "pip", "install", "-q", *mode], cwd=source)
    if done.returncode:
        raise SystemExit(f"cannot install {project['spec']}: {done.stderr.strip()[-800:]}")
    _install_orderdep(python, source)
    return source, python


def _install_orderdep(python: Path, source: Path) -> None:
    step = ["-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(REPO)]
    first = sh([str(python), "-m", "pip", "install", "-q", str(REPO)], cwd=source)
    done = sh([str(python), *step], cwd=source) if first.returncode == 0 else first
    if done.returncode:
        raise SystemExit(f"cannot install orderdep: {done.stderr.strip()[-800:]}")


def plain(python: Path, source: Path, order: list[str]) -> subprocess.CompletedProcess[str]:
    return sh([str(python), "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
               "-q", *order], cwd=source, timeout=600)  # fmt: skip


def confirmed(python: Path, source: Path, row: dict[str, Any]) -> bool:
    """The victim passes alone and fails after one of its polluters (plain pytest)."""
    victim = row["test"]
    if plain(python, source, [victim]).returncode != 0:
        return False
    return any(plain(python, source, [p, victim]).returncode != 0 for p in row["polluters"])


def score(project: dict[str, Any], budget: float, seed: int, work: Path) -> Scored:
    source, python = set_up(project, work)
    out = Scored()
    baseline = plain(python, source, [])
    out.lines.append(f"original order (plain pytest): {baseline.stdout.strip().splitlines()[-1]}")
    rows = [r for r in project.get("known", []) if confirmed(python, source, r)]
    out.confirmed = len(rows)
    report = work / "report.json"
    store = work / "store.db"
    for stale in (report, store, work / "fidelity.json"):
        stale.unlink(missing_ok=True)
    orderdep = python.parent / "orderdep"
    cmd = [str(orderdep), "detect", ".", "--classify", "--budget", f"{budget:g}",
           "--seed", str(seed), "--report", str(report), "--store", str(store)]  # fmt: skip
    began = time.monotonic()
    run = sh(cmd, cwd=source, timeout=budget * 3 + 600)
    out.wall = time.monotonic() - began
    out.exit_code = run.returncode
    (work / "detect.out").write_text(run.stdout + "\n--- stderr ---\n" + run.stderr)
    data = json.loads(report.read_text()) if report.exists() else {"tests": [], "od_tests": []}
    out.tests = len(data["tests"])
    findings = {f["test"]: f for f in data["od_tests"]}
    out.found = len(findings)
    out.classified = sum(1 for f in findings.values() if f.get("kind"))
    for row in rows:
        finding = findings.get(row["test"])
        if finding is not None:
            out.known_found += 1
            polluters = set(finding.get("polluters") or [])
            polluters |= {t for g in finding.get("polluter_groups") or [] for t in g}
            out.with_polluter += bool(polluters & set(row["polluters"]))
    out.lines.append(f"detect: exit {run.returncode}; last lines of its output:")
    out.lines += [f"    {line}" for line in run.stdout.strip().splitlines()[-6:]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", default=[])
    parser.add_argument("--budget", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--label", default="")
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    manifest = json.loads(MANIFEST.read_text())
    chosen = [p for p in manifest["projects"] if not args.project or p["name"] in args.project]
    base = args.work or Path(tempfile.mkdtemp(prefix="orderdep-sdists-"))
    rows: list[list[object]] = []
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    run_label = f"{stamp} {args.label}".strip()
    for project in chosen:
        work = base / project["name"]
        work.mkdir(parents=True, exist_ok=True)
        s = score(project, args.budget, args.seed, work)
        print(f"== {project['spec']}", *s.lines, sep="\n")
        known = len(project.get("known", []))
        rows.append([run_label, project["spec"], project.get("install", "editable"), s.tests,
                     f"{args.budget:g}", f"{s.wall:.0f}", f"{s.wall / args.budget:.2f}",
                     s.exit_code, s.found, s.classified, f"{s.confirmed} of {known}",
                     f"{s.known_found} of {s.confirmed}", f"{s.with_polluter} of {s.confirmed}"])  # fmt: skip
        print(table(HEADERS, rows[-1:]))
    if args.no_doc:
        return
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    earlier = _earlier_rows(text)
    body = (
        "Each project set up from its sdist in a venv of its own, as its users do; "
        "`orderdep detect . --classify --budget B --seed S` run as typed, with no other "
        "option. Known OD tests: confirmed by hand with plain pytest first (victim alone "
        "passes, after its polluter fails). Rows are kept as they came out; later runs add "
        "rows.\n\n" + table(HEADERS, [*earlier, *rows])
    )
    notes = _notes(text)
    if notes:
        body += "\n\n" + "\n".join(notes)
    write_section(SECTION, body)


def _notes(text: str) -> list[str]:
    """Notes on earlier rows (lines starting ``Note:`` in the section), kept as written."""
    begin, end = f"<!-- begin {SECTION} -->", f"<!-- end {SECTION} -->"
    if begin not in text:
        return []
    part = text.split(begin, 1)[1].split(end, 1)[0]
    return [line for line in part.splitlines() if line.startswith("Note:")]


def _earlier_rows(text: str) -> list[list[object]]:
    begin, end = f"<!-- begin {SECTION} -->", f"<!-- end {SECTION} -->"
    if begin not in text:
        return []
    part = text.split(begin, 1)[1].split(end, 1)[0]
    out: list[list[object]] = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(HEADERS) and cells[0] != "run":
            out.append(list(cells))
    return out


if __name__ == "__main__":
    main()
