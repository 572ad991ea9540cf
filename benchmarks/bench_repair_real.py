"""Repair on real projects whose OD tests were confirmed by hand, side by side with ipflakies.

Takes one or more cases files (JSON, kept outside the repository) describing projects that
are already set up: a checkout at a listed commit, its own venv with orderdep installed,
and per OD test its partners and a failing and a passing order, each confirmed with plain
pytest::

    {"cases": [{"project": "owner/name", "commit": "<sha>", "dir": "<checkout>",
                "python": "<venv>/bin/python", "pytest_args": [], "test": "<node id>",
                "kind": "victim" | "brittle", "partners": ["<node id>", ...],
                "failing_order": [...], "passing_order": [...], "mechanism": "<one line>",
                "category": "<short mechanism class, optional>",
                "orderdep_args": ["-k", "<selection for detect and fix, optional>"], ...}],
     "dropped": [{"project": "owner/name", "why": "..."}]}

orderdep
    on a copy of each project (without its ``.orderdep``): ``orderdep detect --classify
    --seed 1 --python PY --budget S`` (plus the project's ``orderdep_args``), then
    ``orderdep fix --python PY --test T ...`` for the listed OD tests, whose patch set
    (else each verified patch that applies) is then applied to the copy; the listed tests
    that detect did not report get ``fix --test T --polluter P ... --apply`` one at a
    time, each on the files the earlier patches changed, as a user fixes them one after
    another. *verified*: ``fix`` printed a verified patch for it, or said
    it needs none (it passes in its failing order once earlier patches are in). *holds*:
    on a fresh copy of the patched files, under plain
    ``python -m pytest -p no:randomly`` with one fresh process (and a fresh copy) per
    order, the test passes in its failing and its passing order (a victim also after each
    of its listed polluters alone), its own patch is among those applied, and the whole
    suite in its original order keeps the outcomes it had unpatched (a failing test may
    turn to passed: a patch at the polluter repairs its other victims too).
ipflakies
    (``--ipflakies``) ``python -m ipflakies -t TEST`` on a fresh copy, per OD test, in a
    venv of its own per interpreter version (``/tmp/ipf-real-X.Y``: ipflakies, then the
    project's own requirements as ``pip freeze`` lists them, without the ones ipflakies
    pins, and the case venv's hand-made shims: site-packages files no distribution
    lists). *patched*: it saved a patched test file; *holds*: the same check as above
    with that file in place.

Every patch (orderdep's, and ipflakies' as a diff) is printed, so a reader can judge it.

Usage: python benchmarks/bench_repair_real.py [--cases FILE ...] [--project P ...] [--ipflakies]
       [--budget 600] [--results FILE] [--render] [--no-doc]
Writes the section "Repair on real projects" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_repair import ipflakies_env
from bench_repair_corpus import ipflakies_patches, pct, quiet, say
from benchdoc import table, write_section

Json = dict[str, Any]
SECTION = "Repair on real projects"
DEFAULT_CASES = [Path("/work/rw/cases-rw1.json"), Path("/work/rw/cases-rw2.json")]
IGNORED = shutil.ignore_patterns(".orderdep", "__pycache__", ".pytest_cache", ".git", "*.pyc")
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (.+?)(?: - .*)?$")
PLAIN_TIMEOUT = 900
ALL = "*"  # a patch file for every OD test (fix's patch set)
IPFLAKIES_TIMEOUT = 300  # it has no timeout of its own; some orders of real suites hang


def load_cases(paths: list[Path]) -> tuple[list[Json], list[Json]]:
    cases: list[Json] = []
    dropped: list[Json] = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        cases += data.get("cases", [])
        dropped += data.get("dropped", [])
    return cases, dropped


def copy(src: str, dest: Path) -> Path:
    """A fresh copy of ``src`` under a new name next to ``dest`` (a killed run's processes
    may still be writing into an older copy)."""
    dest = Path(tempfile.mkdtemp(prefix=dest.name + "-", dir=dest.parent))
    shutil.copytree(src, dest, ignore=IGNORED, symlinks=True, dirs_exist_ok=True)
    return dest


def plain_run(project: Path, python: str, args: list[str], ids: list[str]) -> dict[str, str]:
    """Test -> outcome of one fresh ``python -m pytest`` process running ``ids`` in order."""
    argv = [python, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += ["-q", "-rA", "--tb=no", *args, *ids]
    try:
        proc = subprocess.run(
            argv, cwd=project, capture_output=True, text=True, timeout=PLAIN_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return {}
    out: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        m = OUTCOME.match(line)
        if m:
            outcome, test = m.group(1).lower(), m.group(2)
            if out.get(test) in (None, "passed", "xfail"):  # an error at teardown wins
                out[test] = outcome
    return out


def plain_outcomes(
    tree: Path, case: Json, orders: list[list[str]], tmp: Path
) -> list[dict[str, str]]:
    """Each order in a fresh process on a fresh copy of ``tree`` (tests may write files)."""
    results = []
    for i, order in enumerate(orders):
        work = copy(str(tree), tmp / f"plain-{i}")
        results.append(plain_run(work, case["python"], case.get("pytest_args", []), order))
        shutil.rmtree(work, ignore_errors=True)
    return results


def holds_check(
    tree: Path, cases: list[Json], baseline: dict[str, str], tmp: Path
) -> dict[str, Json]:
    """Per case: passes in its failing and passing order (and, for a victim, after each
    of its listed polluters), and the suite keeps its outcomes."""
    orders = [c["failing_order"] for c in cases] + [c["passing_order"] for c in cases]
    extra = [
        (c["test"], [p, c["test"]])
        for c in cases
        if c["kind"] == "victim"
        for p in c.get("partners", [])
        if [p, c["test"]] != c["failing_order"]
    ]
    results = plain_outcomes(tree, cases[0], [*orders, *(o for _, o in extra), []], tmp)
    suite = results[-1]
    after_partner: dict[str, list[Optional[str]]] = defaultdict(list)
    for i, (test, _) in enumerate(extra):
        after_partner[test].append(results[2 * len(cases) + i].get(test))
    # a test failing unpatched that passes now is repaired too (another OD test of the
    # same polluter, as orderdep fix's own verification allows), not a changed outcome
    changed = sorted(
        t
        for t in set(baseline) | set(suite)
        if baseline.get(t) != suite.get(t)
        and not (suite.get(t) == "passed" and baseline.get(t) in ("failed", "error"))
    )
    out = {}
    for i, c in enumerate(cases):
        failing = results[i].get(c["test"])
        passing = results[len(cases) + i].get(c["test"])
        partners = after_partner.get(c["test"], [])
        ok = failing == "passed" and passing == "passed" and not changed
        ok = ok and all(o == "passed" for o in partners)
        out[c["test"]] = {"holds": ok, "failing": failing, "passing": passing, "changed": changed,
                          "after_each_partner": partners}  # fmt: skip
    return out


def apply_patches(tree: Path, patches: list[Path]) -> list[Path]:
    """Apply each patch that applies (``patch -p1``); return those applied."""
    applied = []
    for p in patches:
        dry = subprocess.run(
            ["patch", "-p1", "--dry-run", "--forward", "-s", "-d", str(tree), "-i", str(p)],
            capture_output=True,
        )
        if dry.returncode == 0:
            subprocess.run(["patch", "-p1", "-s", "-d", str(tree), "-i", str(p)], check=True)
            applied.append(p)
    return applied


def bench_orderdep(project: str, cases: list[Json], baseline: dict[str, str], args, tmp: Path):
    first = cases[0]
    root = copy(first["dir"], tmp / "orderdep")
    py = ["--python", first["python"]]
    py += [a for x in first.get("pytest_args", []) for a in ("--pytest-arg", x)]
    py += first.get("orderdep_args", [])  # selection (-k, -m, --deselect): detect and fix
    start = time.perf_counter()
    detect = ["detect", str(root), "--classify", "--seed", "1", *py]
    detect += ["--budget", str(args.budget)]
    code, _ = quiet(detect)
    say(f"{project}: detect exit {code} in {time.perf_counter() - start:.0f} s")
    report = json.loads((root / ".orderdep" / "report.json").read_text(encoding="utf-8"))
    found = {f["test"] for f in report.get("od_tests", []) if f.get("kind")}
    listed = [c["test"] for c in cases]
    entries: dict[str, Json] = {}
    outputs = []
    # the OD tests whose own patch is in the copy's files (ALL: fix's patch set), as a
    # user applies what fix offers before fixing the next tests
    with_patch: set[str] = set()
    fix_found = [t for t in listed if t in found]
    held: Optional[bool] = None  # fix's own verdict on the patch set (None: no set checked)
    if fix_found:
        _, output = quiet(["fix", str(root), *py, *[a for t in fix_found for a in ("--test", t)]])
        outputs.append(output)
        fixes = json.loads((root / ".orderdep" / "fixes.json").read_text(encoding="utf-8"))
        entries.update(fixes["fixes"])
        verdicts = [line for line in output.splitlines() if line.startswith("patch set: ")]
        held = (" hold together " in verdicts[0]) if verdicts else None
        patch_set = root / ".orderdep" / "patches" / "patch-set.patch"
        chosen = {patch_set: ALL} if held and patch_set.exists() else patch_files(root, entries)
        with_patch |= {chosen[p] for p in apply_patches(root, list(chosen))}
    # a listed test detect did not report: `fix --test T --polluter P ... --apply`, one
    # test at a time, each on the files the earlier patches changed; a test an earlier
    # patch repaired passes in its failing order, and fix says it needs nothing
    for c in cases:
        if c["test"] in found:
            continue
        argv = ["fix", str(root), *py, "--test", c["test"]]
        argv += [a for p in c["partners"] for a in ("--polluter", p)]
        code, output = quiet([*argv, "--apply"])
        outputs.append(output)
        fixes_file = root / ".orderdep" / "fixes.json"
        fixes = json.loads(fixes_file.read_text(encoding="utf-8")) if fixes_file.exists() else {}
        none = {"fixed": False, "notes": [f"fix exited {code} without an entry for it"]}
        entry = entries[c["test"]] = fixes.get("fixes", {}).get(c["test"], none)
        applied = any(line.startswith("applied to ") for line in output.splitlines())
        if entry.get("reproduced") is False or (applied and entry.get("fixed")):
            with_patch.add(c["test"])
        elif entry.get("fixed") and apply_patches(
            root, list(patch_files(root, {c["test"]: entry}))
        ):
            with_patch.add(c["test"])  # the set did not hold: its own patch applied
    wall = time.perf_counter() - start
    for output in outputs:
        print(f"==== orderdep fix, {project}\n{output}", flush=True)  # every patch
    fixed = [c for c in cases if repaired(entries.get(c["test"], {}))]
    checks: dict[str, Json] = {}
    if fixed:
        tree = copy(str(root), tmp / "orderdep-applied")  # without .orderdep
        say(f"{project}: {len(with_patch)} OD test(s) with their patch in the files")
        checks = holds_check(tree, fixed, baseline, tmp)
        # a test whose own patch did not apply with the others is not repaired, whatever
        # the other patches did to its polluter
        for test, check in checks.items():
            if ALL not in with_patch and test not in with_patch:
                check.update(holds=False, not_applied=True)
    rows = []
    for c in cases:
        entry = entries.get(c["test"], {})
        check = checks.get(c["test"], {})
        rows.append({
            "project": project, "test": c["test"], "kind": c["kind"],
            "category": category(c), "found": c["test"] in found,
            "repaired": repaired(entry), "strategy": strategy_of(entry),
            "holds": bool(check.get("holds")), "check": check, "set_held": held,
            "why": [] if repaired(entry) else entry.get("notes", ["not in fix's output"]),
            "seconds": wall / len(cases),
        })  # fmt: skip
    return rows


def patch_files(root: Path, entries: dict[str, Json]) -> dict[Path, str]:
    """Patch file -> the OD test it is for, of each entry fix verified a patch for."""
    return {root / ".orderdep" / e["patch"]: t for t, e in entries.items() if e.get("fixed")}


def repaired(entry: Json) -> bool:
    """fix verified a patch for it, or it passed in its failing order once the patches
    fix applied before had changed the files."""
    return bool(entry.get("fixed")) or entry.get("reproduced") is False


def strategy_of(entry: Json) -> Optional[str]:
    return "earlier patch" if entry.get("reproduced") is False else entry.get("strategy")


def category(case: Json) -> str:
    return str(case.get("category") or " ".join(case.get("mechanism", "?").split()[:3]))


def ensure_ipflakies_for(python: str, root: Path) -> tuple[Optional[str], str]:
    """A venv with ipflakies for ``python``'s version, plus the case venv's requirements."""
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    venv = root / f"ipf-real-{version}-{zlib.crc32(python.encode()):08x}"
    ipf = venv / "bin" / "python"
    if not ipf.exists():
        say(f"creating {venv}: {python} -m venv, pip install ipflakies and the project's needs")
        subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
        proc = subprocess.run([str(ipf), "-m", "pip", "install", "-q", "ipflakies"],
                              capture_output=True, text=True)  # fmt: skip
        if proc.returncode:
            shutil.rmtree(venv, ignore_errors=True)
            return None, f"pip install ipflakies failed: {proc.stderr.strip()[-300:]}"
        have = {line.split("==")[0].lower() for line in freeze(str(ipf))}
        skip = have | {"orderdep", "pytest", "pluggy", "iniconfig", "exceptiongroup", "tomli"}
        need = [line for line in freeze(python) if line.split("==")[0].lower() not in skip]
        if need:
            subprocess.run([str(ipf), "-m", "pip", "install", "-q", *need], capture_output=True)
    copy_site_shims(python, str(ipf))
    check = subprocess.run([str(ipf), "-c", "import ipflakies"], capture_output=True, text=True)
    if check.returncode:
        return None, f"`import ipflakies` fails in {venv}: {check.stderr.strip()[-300:]}"
    return str(ipf), ""


def site_packages(python: str) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def copy_site_shims(python: str, ipf: str) -> None:
    """Copy the case venv's hand-made compatibility shims (top-level ``.py`` and ``.pth``
    files of its site-packages that no installed distribution lists, such as an alias
    module for names Python 3.10 removed from ``collections``) into ipflakies' venv, so
    both tools run the suite in the same environment."""
    src, dst = site_packages(python), site_packages(ipf)
    owned = {
        line.split(",", 1)[0]
        for record in src.glob("*.dist-info/RECORD")
        for line in record.read_text(encoding="utf-8", errors="replace").splitlines()
    }
    for path in [*src.glob("*.py"), *src.glob("*.pth")]:
        if path.name not in owned and not (dst / path.name).exists():
            shutil.copy(path, dst / path.name)


def freeze(python: str) -> list[str]:
    out = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable"],
                         capture_output=True, text=True).stdout  # fmt: skip
    return [line for line in out.splitlines() if "==" in line]


def bench_ipflakies(case: Json, python: str, baseline: dict[str, str], tmp: Path) -> Json:
    project = copy(case["dir"], tmp / "ipf")
    command = shlex.join([python, "-m", "ipflakies", "-t", case["test"]])
    start = time.perf_counter()
    env = ipflakies_env(python, project)
    log = project.with_suffix(".log")
    out = log.open("wb")
    if case.get("pytest_args"):  # e.g. --ignore of a module that does not collect
        env["PYTEST_ADDOPTS"] = shlex.join(case["pytest_args"])
    proc = subprocess.Popen(
        ["nice", "script", "-qec", command, "/dev/null"],
        cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        exit_code: object = proc.wait(timeout=IPFLAKIES_TIMEOUT)
    except subprocess.TimeoutExpired:  # kill the pytest processes it started too
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        exit_code = f"timeout ({IPFLAKIES_TIMEOUT} s)"
    out.close()
    row: Json = {"patched": False, "holds": False, "exit": exit_code}
    row["log_tail"] = log.read_text(errors="replace").strip().splitlines()[-3:]
    row["seconds"] = time.perf_counter() - start
    patches = ipflakies_patches(project / "ipflakies_result")
    row["patched"] = bool(patches)
    patched = project / patches[0]["patched_test_file"] if patches else None
    # read its result before the copy goes (it holds the patched file)
    new = patched.read_text(encoding="utf-8") if patched and patched.exists() else None
    shutil.rmtree(project, ignore_errors=True)
    if new is None:
        return row
    module = case["test"].split("::", 1)[0]
    original = (Path(case["dir"]) / module).read_text(encoding="utf-8")
    diff = difflib.unified_diff(
        original.splitlines(True), new.splitlines(True), f"a/{module}", f"b/{module}"
    )
    print(f"==== ipflakies, {case['test']}\n{''.join(diff)}", flush=True)
    tree = copy(case["dir"], tmp / "ipf-applied")
    (tree / module).write_text(new, encoding="utf-8")
    check = holds_check(tree, [case], baseline, tmp)[case["test"]]
    row["holds"], row["check"] = check["holds"], check
    return row


def summary(rows: list[Json], ipf: Optional[dict[str, Json]]) -> list[object]:
    n = len(rows)
    cells: list[object] = [
        n,
        f"{sum(r['kind'] == 'victim' for r in rows)}/{sum(r['kind'] == 'brittle' for r in rows)}",
        pct(sum(r["found"] for r in rows), n),
        pct(sum(r["repaired"] for r in rows), n),
        pct(sum(r["holds"] for r in rows), n),
    ]
    if ipf is not None:
        theirs = [ipf.get(key(r), {}) for r in rows]
        cells += [
            pct(sum(bool(t.get("patched")) for t in theirs), n),
            pct(sum(bool(t.get("holds")) for t in theirs), n),
        ]
    return cells


def key(row: Json) -> str:
    return f"{row['project']} {row['test']}"


def render(rows: list[Json], dropped: list[Json], ipf: Optional[dict[str, Json]],
           commits: dict[str, str], reused: bool) -> str:  # fmt: skip
    head = ["OD tests", "victims/brittles", "found by detect", "orderdep verified",
            "holds (plain pytest)"]  # fmt: skip
    if ipf is not None:
        head += ["ipflakies patched", "ipflakies holds"]
    projects = sorted({r["project"] for r in rows})
    lines = []
    for p in projects:
        mine = [r for r in rows if r["project"] == p]
        strategies = ", ".join(sorted({r["strategy"] for r in mine if r["strategy"]})) or "-"
        secs = f"{sum(r['seconds'] for r in mine) / len(mine):.0f}"
        verdict = {True: "yes", False: "no", None: "-"}[mine[0].get("set_held")]
        lines.append([f"{p} `{commits[p][:10]}`", *summary(mine, ipf), verdict, strategies, secs])
    lines.append(["**all**", *summary(rows, ipf), "", "", ""])
    by_kind = []
    for cat in sorted({r["category"] for r in rows}):
        mine = [r for r in rows if r["category"] == cat]
        by_kind.append([cat, ", ".join(sorted({r["project"] for r in mine})), *summary(mine, ipf)])
    body = [
        "OD tests of real projects (from the Illinois Dataset of Flaky Tests), each set up at "
        "the listed commit in a venv of its own and confirmed by hand with plain pytest "
        "(victims pass alone and fail after their polluter; brittles fail alone and pass "
        "after their state-setter). orderdep: `detect --classify` on a copy, then `fix` for "
        "the listed tests it found, whose patches are applied; a listed test detect did not "
        "find gets `fix --test T --polluter P --apply` in turn, on the files the earlier "
        "patches changed (*earlier patch*: it passed in its failing order by then, and fix "
        "said there was nothing to fix); seconds per OD test include all of it. *holds*: "
        "with the patches applied, the test passes in its failing and its passing order (a victim also "
        "after each of its polluters alone), its own patch is among those applied, and the "
        "whole suite keeps its outcomes in its original order, under plain `python -m pytest -p "
        "no:randomly`, one fresh process and copy per order. ipflakies: `python -m "
        "ipflakies -t TEST` per OD test on a fresh copy; its patched test file is checked "
        "the same way. *fix: set holds*: `fix`'s own verdict on the patches together (the "
        "original order, every failing order, 20 random orders); when it says no, the "
        "verified patches are applied one by one for the plain-pytest check.",
        "",
        table(
            ["project, commit", *head, "fix: set holds", "orderdep strategies", "s per OD test"],
            lines,
        ),
        "",
        "Per mechanism:",
        "",
        table(["mechanism", "projects", *head], by_kind),
    ]
    missed = [r for r in rows if not r["holds"]]
    if missed:
        body += ["", "Not repaired (or not holding), and orderdep's reasons:", ""]
        for r in missed:
            why = (
                " / ".join(r["why"])
                if not r["repaired"]
                else (f"verified, but under plain pytest: {json.dumps(r['check'], sort_keys=True)}")
            )
            body.append(f"- {r['project']} `{r['test']}` ({r['kind']}, {r['category']}): {why}")
    if ipf is not None:
        crashed = [k for k, v in ipf.items() if v.get("exit") not in (0, None)]
        body += ["", f"ipflakies exited with an error or timed out on {len(crashed)} of "
                 f"the {len(ipf)} OD tests it ran on."]  # fmt: skip
        missing = [r for r in rows if key(r) not in ipf]
        if missing:
            names = ", ".join(sorted({r["project"] for r in missing}))
            body += [f"ipflakies was not run on {len(missing)} OD tests ({names}); they "
                     "count as not patched."]  # fmt: skip
        if reused:
            body += ["ipflakies' columns are read back from the last `--ipflakies` run."]
    else:
        body += ["", "ipflakies was not run (`--ipflakies`)."]
    if dropped:
        body += ["", "Projects set up and dropped:", ""]
        body += [f"- {d['project']}: {d['why']}" for d in dropped]
    return "\n".join(body)


def save(path: Path, rows_by: dict[str, list[Json]], ipf_by: dict[str, Json]) -> None:
    path.write_text(json.dumps({"orderdep": rows_by, "ipflakies": ipf_by}, indent=1), "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, action="append", help="Cases file (repeatable).")
    parser.add_argument("--project", action="append", help="Only this project (repeatable).")
    parser.add_argument("--budget", type=int, default=600, help="detect's --budget, seconds.")
    parser.add_argument("--ipflakies", action="store_true", help="Also run ipflakies.")
    parser.add_argument(
        "--venvs", type=Path, default=Path(tempfile.gettempdir()),
        help="Where ipflakies' venvs are made (one per interpreter).",
    )  # fmt: skip
    parser.add_argument(
        "--results", type=Path,
        default=Path(tempfile.gettempdir()) / "orderdep-bench-real.json",
        help="Rows are kept here (merged per project), so projects can run separately.",
    )  # fmt: skip
    parser.add_argument(
        "--ipflakies-only", action="store_true",
        help="Run only ipflakies; orderdep's rows are read back from --results.",
    )  # fmt: skip
    parser.add_argument(
        "--render", action="store_true",
        help="Run nothing; write the section from the rows kept in --results.",
    )  # fmt: skip
    parser.add_argument(
        "--no-doc", action="store_true",
        help="Print the section instead of writing it to docs/benchmarks.md.",
    )  # fmt: skip
    args = parser.parse_args()
    paths = args.cases or [p for p in DEFAULT_CASES if p.exists()]
    cases, dropped = load_cases(paths)
    grouped: dict[str, list[Json]] = defaultdict(list)
    for c in cases:
        grouped[c["project"]].append(c)
    saved: Json = (
        json.loads(args.results.read_text(encoding="utf-8")) if args.results.exists() else {}
    )
    rows_by: dict[str, list[Json]] = saved.get("orderdep", {})
    ipf_by: dict[str, Json] = saved.get("ipflakies", {})
    for project, mine in sorted(grouped.items()):
        if args.render or (args.project and project not in args.project):
            continue
        with tempfile.TemporaryDirectory(prefix="orderdep-bench-real-") as tmp_name:
            tmp = Path(tmp_name)
            base = copy(mine[0]["dir"], tmp / "baseline")
            baseline = plain_run(base, mine[0]["python"], mine[0].get("pytest_args", []), [])
            say(f"{project}: {len(baseline)} tests in the unpatched original order")
            if not (args.ipflakies_only and project in rows_by):
                rows_by[project] = bench_orderdep(project, mine, baseline, args, tmp)
                save(args.results, rows_by, ipf_by)
            say(f"{project}: {sum(r['holds'] for r in rows_by[project])} of {len(mine)} hold")
            if args.ipflakies or args.ipflakies_only:
                python, why = ensure_ipflakies_for(mine[0]["python"], args.venvs)
                for c in mine:
                    row = (bench_ipflakies(c, python, baseline, tmp) if python
                           else {"patched": False, "holds": False, "exit": why})  # fmt: skip
                    ipf_by[f"{project} {c['test']}"] = row
                    say(f"ipflakies {c['test']}: {row}")
                    save(args.results, rows_by, ipf_by)
    rows = [r for p in sorted(rows_by) if p in grouped for r in rows_by[p]]
    commits = {c["project"]: c["commit"] for c in cases}
    ipf = {k: v for k, v in ipf_by.items() if k.split(" ", 1)[0] in grouped} or None
    reused = not (args.ipflakies or args.ipflakies_only) or args.render
    section = render(rows, dropped, ipf, commits, reused=reused)
    if args.no_doc:
        print(section)
    else:
        write_section(SECTION, section)


if __name__ == "__main__":
    main()
