"""``detect --classify --budget B`` on real projects of 200+ tests: does it end in time,
does it find what a run with no budget finds, and does its printed estimate hold?

The projects come from cases files (kept outside this repository; the format of
why_real.py): third-party projects set up by hand at a listed commit, each with its own
venv (orderdep installed there), and OD tests whose relation was confirmed by hand with
plain pytest. For every project with at least ``--min-tests`` collected tests and each
budget, ``orderdep detect . --classify --budget B --python VENV/bin/python --seed 1
--jobs J`` runs as a subprocess in a fresh copy of the project (no store, no report).
Wall time against the budget (target: at most B + 10%), OD tests found and classified,
and the recall of the hand-confirmed OD tests (the known ones; the project may have more).

With ``--reference-file F``, each row also gives the recall against the same command
with no budget (the *reference*), run once per project and commit and kept in F; with
``--reference`` the missing references are run first (``--reference-budget S`` gives
them a budget instead, for projects where an unlimited run takes too long). Every run
also reports the estimate detect prints before its search (``~N s estimated`` for
tuscan, ``~P s per OD test found``) next to what the run then took: from that line to
the end, against the estimate plus P for each OD test found. With ``--runs-file G`` the
budget runs are kept in G too, and a run found there is not repeated. With
``--reference-dir D`` a reference keeps its copy of the project and its store in D, and
a reference its budget stopped is run again there by the next ``--reference``: it resumes
where it stopped, and its row gives the wall time of all its runs. A run with no budget
runs tuscan when its estimate is under an hour, else random-reverse; where it runs
tuscan, parts under a budget need ``--reference-strategy tuscan`` (with a budget below
tuscan's estimate, the default strategy is random-reverse).

Usage: python benchmarks/scale_real.py --cases FILE [--cases FILE ...]
       [--budgets 120,600] [--min-tests 200] [--jobs 2] [--project NAME ...]
       [--reference-file F [--reference] [--reference-budget S] [--reference-dir D]
       [--reference-strategy tuscan]]
       [--runs-file G]
       [--no-doc]
Writes the section "Scale on real projects" of docs/benchmarks.md (not with --no-doc).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section

HEADERS = ["project", "commit", "tests", "budget (s)", "wall (s)", "wall / budget",
           "found", "kind known", "partners found", "known found", "recall of known", "reference found",
           "recall vs no budget", "known relations: as by hand / confirmed", "strategy",
           "estimate (s)",
           "per OD test (s)",
           "took after it (s)", "took / predicted"]  # fmt: skip
# "orderdep: no --strategy given, running tuscan: ... (~12 orders, ~34 s estimated;
# ~5 s per OD test found)"
PARTNERS = ("polluters", "polluter_groups", "state_setters", "state_setter_groups")
ESTIMATE = re.compile(
    r"running (?P<strategy>[\w-]+):.*?~(?P<orders>\d+) orders, ~(?P<seconds>\d+) s estimated"
    r"(?:; ~(?P<per_od>\d+) s per OD test found)?"
)


@dataclass
class DetectRun:
    """One ``detect --classify`` run: what it found and what it said it would cost."""

    budget: Optional[int]
    wall: float
    found: dict[str, Optional[str]]  # OD test -> kind (None: not classified)
    strategy: str = ""
    estimate: Optional[float] = None  # tuscan's estimated seconds
    per_od: Optional[float] = None  # estimated seconds per OD test found
    after_estimate: Optional[float] = None  # seconds from the estimate line to the end
    with_partners: Optional[int] = None  # OD tests whose partners classification found
    exit_code: int = 0
    stderr_tail: list[str] = field(default_factory=list)
    complete: Optional[bool] = None  # the report names no unfinished work (None: not read)
    # OD test -> the partner sets found: each polluter or state-setter alone, each group
    relations: Optional[dict[str, list[list[str]]]] = None
    # known OD tests with a found relation that plain pytest confirmed (None: not checked)
    confirmed: Optional[int] = None
    parts: int = 1  # runs of the same command in one kept copy, each resuming the last

    @property
    def predicted(self) -> Optional[float]:
        """What the printed estimate predicts for the rest of the run, if tuscan ran."""
        if self.strategy != "tuscan" or self.estimate is None:
            return None
        return self.estimate + len(self.found) * (self.per_od or 0.0)


def projects(paths: list[Path]) -> list[dict[str, Any]]:
    """One entry per project: its set-up and the OD tests confirmed in it."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            p = out.setdefault(
                case["project"], {**case, "known": set(), "relations": {}, "kinds": {}}
            )
            p["known"].add(case["test"])
            p["kinds"][case["test"]] = case["kind"]
            order = case["failing_order" if case["kind"] == "victim" else "passing_order"]
            p["relations"][case["test"]] = list(order[:-1])
    return list(out.values())


def collected(project: dict[str, Any]) -> int:
    cmd = [project["python"], "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    cmd += project.get("pytest_args", [])
    out = subprocess.run(cmd, cwd=project["dir"], capture_output=True, text=True).stdout
    # "450 tests collected in 0.68s" (node ids may hold spaces: count pytest's own total)
    match = re.search(r"^(\d+) tests? collected", out, re.MULTILINE)
    return int(match[1]) if match else 0


def detect(
    project: dict[str, Any],
    budget: Optional[int],
    jobs: int,
    tmp: Path,
    keep: bool = False,
    strategy: Optional[str] = None,
) -> DetectRun:
    """``detect --classify`` (with ``--budget`` unless None) in a fresh copy of the project,
    timing the estimate line as it arrives on stderr (kept in ``tmp``, next to the copy,
    as ``<copy>.log``). With ``keep`` the copy (and its
    store) stays in ``tmp``, and a copy already there is run in again: the command
    resumes where the last run stopped."""
    work = tmp / f"{project['project'].replace('/', '+')}-{budget or 'none'}"
    ignore = shutil.ignore_patterns(".orderdep", ".pytest_cache", "__pycache__")
    if not (keep and work.exists()):
        shutil.copytree(project["dir"], work, symlinks=True, ignore=ignore)
    cmd = [sys.executable, "-c", "from orderdep.shells.cli import run; run()", "detect", "."]
    cmd += ["--classify", "--python", project["python"], "--seed", "1", "--jobs", str(jobs)]
    cmd += ["--budget", str(budget)] if budget is not None else []
    cmd += ["--strategy", strategy] if strategy else []
    cmd += [f"--pytest-arg={a}" for a in project.get("pytest_args", [])]
    run = DetectRun(budget, 0.0, {})
    start = time.perf_counter()
    seen_at: Optional[float] = None
    lines: list[str] = []
    log = work.parent / f"{work.name}.log"  # detect's progress, to follow a long run
    with (
        subprocess.Popen(
            cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        ) as proc,
        log.open("a", encoding="utf-8", buffering=1) as progress,
    ):
        assert proc.stderr is not None
        for line in proc.stderr:
            progress.write(line)
            lines.append(line.rstrip())
            match = ESTIMATE.search(line)
            if match and seen_at is None:
                seen_at = time.perf_counter()
                run.strategy = match["strategy"]
                run.estimate = float(match["seconds"])
                run.per_od = float(match["per_od"]) if match["per_od"] else None
        run.exit_code = proc.wait()
    end = time.perf_counter()
    run.wall = end - start
    run.after_estimate = end - seen_at if seen_at is not None else None
    run.stderr_tail = lines[-5:]
    report_file = work / ".orderdep" / "report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {"od_tests": []}
    run.found = {f["test"]: f.get("kind") for f in report["od_tests"]}
    run.with_partners = sum(1 for f in report["od_tests"] if any(f.get(k) for k in PARTNERS))
    run.relations = {f["test"]: relations(f) for f in report["od_tests"]}
    run.confirmed = confirm_relations(project, run, work)
    stats = report.get("stats", {})
    run.complete = report_file.exists() and not (
        stats.get("unfinished")
        or stats.get("classify_stopped")
        or any(f.get("unfinished") for f in report["od_tests"])
    )
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return run


def relations(finding: dict[str, Any]) -> list[list[str]]:
    """A finding's partner sets: each single polluter or state-setter, then each group."""
    singles = [[t] for k in ("polluters", "state_setters") for t in finding.get(k) or []]
    groups = [
        list(g) for k in ("polluter_groups", "state_setter_groups") for g in finding.get(k) or []
    ]
    return singles + groups


def as_by_hand(project: dict[str, Any], run: DetectRun) -> str:
    """``a / c of n``: of the n known OD tests, how many the run relates to exactly the
    tests their hand-confirmed order needs (a polluter, or a group, before a victim; the
    setters before a brittle), and how many to a relation plain pytest confirmed (the
    same or another: a state many tests set up has many polluter groups); "–" for a run
    recorded before relations were kept."""
    if run.relations is None:
        return "–"
    hand: dict[str, list[str]] = project["relations"]
    same = sum(
        1 for test, needed in hand.items()
        if sorted(needed) in [sorted(r) for r in run.relations.get(test, [])]
    )  # fmt: skip
    confirmed = "–" if run.confirmed is None else str(run.confirmed)
    return f"{same} / {confirmed} of {len(hand)}"


def confirm_relations(project: dict[str, Any], run: DetectRun, work: Path) -> int:
    """Known OD tests for which one of the run's relations, run before the test in one
    plain ``pytest -p no:randomly`` process in ``work``, gives the test's wrong outcome
    again (fails after a victim's partners, passes after a brittle's). A partner may fail
    itself: odinweb's polluter ``test_get_swagger`` fails alone and still pollutes."""
    options = [a for a in project.get("pytest_args", []) if a.startswith("-")]
    kinds: dict[str, str] = project["kinds"]
    count = 0
    for test in project["known"]:
        for relation in (run.relations or {}).get(test, []):
            cmd = [project["python"], "-m", "pytest", "-p", "no:randomly", "-p",
                   "no:cacheprovider", "-q", "-rfE", *options, *relation, test]  # fmt: skip
            out = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
            failed = {line.split()[1] for line in out.stdout.splitlines()
                      if line.startswith(("FAILED ", "ERROR "))}  # fmt: skip
            victim = kinds[test] == "victim"
            if (test in failed) == victim:
                count += 1
                break
    return count


def resumed(before: DetectRun, after: DetectRun) -> DetectRun:
    """The run ``before`` continued by ``after`` in the same copy: what ``after`` reports,
    over the wall time of both (the estimate is the first part's)."""
    after.wall += before.wall
    after.parts = before.parts + 1
    after.strategy, after.estimate, after.per_od = before.strategy, before.estimate, before.per_od
    after.after_estimate = None  # the estimate priced one run, not a run in parts
    return after


def _fmt(value: Optional[float], digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def row(project: dict[str, Any], n: int, run: DetectRun, ref: Optional[DetectRun]) -> list[object]:
    known: set[str] = project["known"]
    found = set(run.found)
    classified = sum(1 for kind in run.found.values() if kind)
    # an unfinished reference (a run in parts, not all of them done) is no reference yet
    ref_found = set(ref.found) if ref is not None and ref.complete is not False else None
    vs_ref = (
        "–" if not ref_found else f"{len(found & ref_found) / len(ref_found):.2f}"
    )  # fmt: skip
    predicted = run.predicted
    ratio = (
        f"{run.after_estimate / predicted:.2f}"
        if predicted and run.after_estimate is not None
        else f"– ({run.strategy})" if run.strategy else "–"
    )  # fmt: skip
    return [
        project["project"], f"`{project['commit'][:10]}`", n,
        _budget(run), f"{run.wall:.0f}",
        "–" if run.budget is None else f"{run.wall / run.budget:.2f}",
        len(found), classified, _fmt(run.with_partners), f"{len(found & known)} of {len(known)}",
        f"{len(found & known) / len(known):.2f}",
        "–" if ref_found is None else len(ref_found), vs_ref, as_by_hand(project, run),
        run.strategy or "–",
        _fmt(run.estimate), _fmt(run.per_od), _fmt(run.after_estimate), ratio,
    ]  # fmt: skip


def _budget(run: DetectRun) -> str:
    text = "none" if run.budget is None else str(run.budget)
    if run.parts > 1:
        text += f" x {run.parts} runs, resumed"
    if run.complete is False:
        text += " (unfinished)"
    return text


def _key(project: dict[str, Any]) -> str:
    return f"{project['project']}@{project['commit']}"


def load_runs(path: Optional[Path]) -> dict[str, DetectRun]:
    if path is None or not path.exists():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {key: DetectRun(**value) for key, value in raw.items()}


def save_runs(path: Path, runs: dict[str, DetectRun]) -> None:
    data = {key: asdict(run) for key, run in runs.items()}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, action="append", required=True)
    parser.add_argument("--budgets", default="120,600", help="Comma-separated; empty: none.")
    parser.add_argument("--min-tests", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--project", action="append", help="Only this project (repeatable).")
    parser.add_argument("--reference-file", type=Path, help="JSON cache of the references.")
    parser.add_argument("--reference", action="store_true", help="Run missing references.")
    parser.add_argument("--reference-budget", type=int, help="Budget of new references.")
    parser.add_argument("--runs-file", type=Path, help="JSON cache of the budget runs.")
    parser.add_argument(
        "--reference-strategy",
        help="--strategy of new references (parts under --reference-budget of a suite where "
        "a run with no budget runs tuscan need tuscan: under a budget the default would "
        "turn to random-reverse).",
    )  # fmt: skip
    parser.add_argument(
        "--reference-dir", type=Path,
        help="Keep each reference's copy (and store) here; with --reference, an unfinished "
        "reference is run again there and resumes.",
    )  # fmt: skip
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    if args.reference and args.reference_file is None:
        parser.error("--reference needs --reference-file")
    refs = load_runs(args.reference_file)
    done = load_runs(args.runs_file)
    budgets = [int(b) for b in args.budgets.split(",") if b]
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        for project in projects(args.cases):
            if args.project and project["project"] not in args.project:
                continue
            n = collected(project)
            if n < args.min_tests:
                continue
            ref = refs.get(_key(project))
            again = ref is not None and ref.complete is False and args.reference_dir is not None
            if (ref is None or again) and args.reference:
                print(f"{project['project']} ({n} tests), reference ...", flush=True)
                where = args.reference_dir or Path(tmpdir)
                where.mkdir(parents=True, exist_ok=True)
                keep = args.reference_dir is not None
                part = detect(
                    project, args.reference_budget, args.jobs, where, keep,
                    args.reference_strategy,
                )  # fmt: skip
                ref = resumed(ref, part) if ref is not None and again else part
                refs[_key(project)] = ref
                save_runs(args.reference_file, refs)
            kept = (args.reference_dir or Path(tmpdir)) / (
                f"{project['project'].replace('/', '+')}-{args.reference_budget or 'none'}"
            )
            if ref is not None and ref.confirmed is None and ref.relations and kept.exists():
                ref.confirmed = confirm_relations(project, ref, kept)  # a reference kept before
                if args.reference_file is not None:
                    save_runs(args.reference_file, refs)
            if ref is not None:
                rows.append(row(project, n, ref, ref))
                print(f"  {rows[-1]}", flush=True)
            for budget in budgets:
                key = f"{_key(project)}/{budget}"
                if key not in done:
                    print(f"{project['project']} ({n} tests), budget {budget} s ...", flush=True)
                    done[key] = detect(project, budget, args.jobs, Path(tmpdir))
                    if args.runs_file is not None:
                        save_runs(args.runs_file, done)
                rows.append(row(project, n, done[key], ref))
                print(f"  {rows[-1]}", flush=True)
    body = (
        "`orderdep detect . --classify --budget B --python VENV/bin/python --seed 1 --jobs "
        "J` on third-party projects of 200+ tests, each set up by hand at the "
        "commit given in a venv of its own, in a fresh copy (no store). *Known OD*: the OD "
        "tests of the project confirmed by hand with plain pytest (one process per order); "
        "the project may have more, so *found* can exceed them. *Kind known*: victim or "
        "brittle settled; *partners found*: its polluters or state-setters found too; "
        "*known relations*: known OD tests whose polluter (or polluter group, or "
        "state-setters) found is exactly the one their hand-confirmed order needs, and "
        "known OD tests with a relation found that one plain pytest process confirms "
        "(relation, then the test). The "
        "row with budget *none* "
        "is the reference: the same command with no budget (or the budget it names), whose "
        "OD tests *recall vs no budget* counts. *Estimate*: what detect prints before its "
        "search (the cost of tuscan, and of each OD test found); *took after it*: seconds "
        "from that line to the end, against the estimate plus the per-OD-test cost for each "
        "OD test found (only where tuscan ran; random-reverse runs until the budget). Wall "
        "time includes start-up and collection. 1-minute load average at the end: "
        f"{os.getloadavg()[0]:.1f}.\n\n" + table(HEADERS, rows)
    )
    if not args.no_doc:
        write_section("Scale on real projects", body)
    print(body)


if __name__ == "__main__":
    main()
