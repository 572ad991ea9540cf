"""One project of a corpus manifest, set up and scored: the task ``corpus.py`` hands to a
Dask worker (or runs in place).

Steps, each bounded by the project's deadline (past it the whole process group of the
step is killed and the row says where it stopped):

1. set-up (``realsetup.set_up``), the original order with plain pytest, timed;
2. each known row that reproduced by hand confirmed again with plain pytest, one fresh
   process per order (the manifest's ``reset`` applied before each: paths removed, tests
   run, ports waited for), judged by the row's own outcome, not the exit code;
3. ``orderdep detect . --classify --budget B --seed S`` in the activated venv, in a fresh
   copy of the tree as the reset leaves it (the tree itself stays unpatched); scored:
   known rows found, of the right kind, with a right partner (a known one, or one plain
   pytest confirms), unlisted OD tests checked with plain pytest (the report's partner, or
   its failing and passing orders; a brittle passing alone in a run of its own file is
   run alone again with the whole suite collected, as orderdep's runs and shuffled runs
   collect it), wall time against the budget;
4. ``orderdep fix . --apply --budget B`` in the same copy, with the same results store
   (the tree's own: fix reuses detect's fork check, as in a user's tree), then plain
   pytest there: each confirmed victim after the partners that failed it (a brittle
   alone), and the original order's outcomes unchanged (a test whose outcome differs
   between two unpatched runs too is left out, and a parametrized test whose ids change
   between processes is compared by its function's outcomes); the patch (``diff -ruN``) is kept and
   its lines counted.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from corpus_ids import as_listed
from patchstats import changed_lines, repeated_blocks
from realsetup import (
    Installer,
    fresh_copy,
    install_project,
    label,
    orderdep_apart,
    outcomes,
    plain,
    set_up,
    sh,
    venv_env,
)

FAILED = ("FAILED", "ERROR")
# A pytest plugin keeping only the tests listed in $CORPUS_KEEP (exact ids), as collected.
EXACT_SELECT = """import json, os


def pytest_collection_modifyitems(config, items):
    keep = set(json.load(open(os.environ["CORPUS_KEEP"])))
    gone = [i for i in items if i.nodeid not in keep]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [i for i in items if i.nodeid in keep]
"""
PASSING = ("PASSED", "XFAIL")  # not a failure: an expected failure that failed as expected
# An unlisted OD test's outcome changes with the order when it fails in one and is not a
# failure in the other: a test skipped alone and failing after another is one.
NOT_FAILING = (*PASSING, "SKIPPED")
UNLISTED_CHECKS = 10  # unlisted OD tests checked with plain pytest, at most, per project


@dataclass
class Row:
    """What one project's run gave; ``status``: scored, skipped, not run, timed out."""

    name: str
    label: str
    status: str = "scored"
    why: str = ""
    setup_s: float = 0.0
    tests: int = 0
    suite_s: float = 0.0
    rows: int = 0
    by_hand: int = 0
    confirmed: int = 0
    found: int = 0
    right_kind: int = 0
    right_partner: int = 0
    od_found: int = 0
    unlisted: int = 0
    unlisted_confirmed: int = 0
    unlisted_unchecked: int = 0
    detect_exit: Optional[int] = None
    detect_wall: float = 0.0
    fix_exit: Optional[int] = None
    repaired: int = 0
    holds: str = "-"
    changed_lines: Optional[int] = None
    repeated_blocks: Optional[int] = None  # copies of one block in the patch set
    lines: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Known:
    test: str
    kind: str
    partners: list[str]
    # victims only: tests that fail it together, in order, where none alone does (a test
    # that makes pytest's tmpdir base, then one that deletes TMPDIR)
    groups: list[list[str]] = field(default_factory=list)

    def named(self) -> set[str]:
        """The partners a finding may name: each single one, the last of each group."""
        return set(self.partners) | {g[-1] for g in self.groups}


# a run of the whole suite taking this many times the unpatched run (at least WHOLE_CAP_MIN
# seconds) has hung: it is killed, and said so, instead of using up the project's bound
WHOLE_CAP, WHOLE_CAP_TIMES, WHOLE_CAP_MIN = 900.0, 10.0, 120.0


def whole_cap(suite_s: float) -> float:
    return min(WHOLE_CAP, max(WHOLE_CAP_MIN, WHOLE_CAP_TIMES * suite_s))


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self, cap: float) -> float:
        """Seconds a step may take: ``cap``, or what is left of the project's time."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired("(project time bound)", 0)
        return min(cap, left)


class Tree:
    """Plain pytest in one tree of the project, with the manifest's resets before each run."""

    def __init__(self, entry: dict[str, Any], tree: Path, python: Path, deadline: Deadline) -> None:
        self.entry, self.tree, self.python, self.deadline = entry, tree, python, deadline
        self.args = list(entry.get("pytest_args") or [])
        self.suite: list[str] = []  # every test id (the report's), for collected()
        self.whole_cap = WHOLE_CAP  # seconds a run of the whole suite may take

    def collected(self, order: list[str], test: str) -> str:
        """``test``'s outcome when ``order`` runs with the whole suite collected (every other
        test deselected), as in a shuffled run or an xdist worker: the test modules'
        import-time code has run. The order's files are named first, in its order (pytest
        runs files as given, each in definition order). ``ABSENT`` without a suite, or
        when that cannot give ``order``: one file's tests out of their definition order,
        or files interleaved."""
        at = {t: i for i, t in enumerate(self.suite)}
        if not self.suite or any(t not in at for t in order):
            return "ABSENT"
        files = list(dict.fromkeys(t.split("::")[0] for t in order))
        for f in files:  # within a file pytest keeps definition order
            mine = [at[t] for t in order if t.split("::")[0] == f]
            if mine != sorted(mine):
                return "ABSENT"
        if [t.split("::")[0] for t in order] != sorted(
            (t.split("::")[0] for t in order), key=files.index
        ):
            return "ABSENT"  # the files' tests interleave
        # every file named, the order's first (pytest runs them as given); paths of the
        # manifest's arguments left out; the other tests deselected by exact id (pytest's
        # --deselect takes prefixes: test_a would take test_a_b with it)
        rest = [f for f in dict.fromkeys(t.split("::")[0] for t in self.suite) if f not in files]
        args = self.options()
        env = venv_env(self.python)
        plugin_dir = Path(env["TMPDIR"]) / "corpus-select"
        plugin_dir.mkdir(parents=True, exist_ok=True)
        (plugin_dir / "corpus_exact_select.py").write_text(EXACT_SELECT)
        (plugin_dir / "keep.json").write_text(json.dumps(order))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_dir), env.get("PYTHONPATH")]))
        env["CORPUS_KEEP"] = str(plugin_dir / "keep.json")
        self.reset()
        run = plain(self.python, self.tree, [*files, *rest], [*args, "-p", "corpus_exact_select"],
                    env=env, timeout=self.deadline.left(900))  # fmt: skip
        return outcomes(run).get(test, "ABSENT")

    def collected_alone(self, test: str) -> str:
        return self.collected([test], test)

    def run(self, order: list[str]) -> subprocess.CompletedProcess[str]:
        """``order`` in one plain pytest process; the manifest's arguments without the
        paths among them when an order is given (``pytest tests A B`` would collect and
        run all of ``tests`` in its own order, not A then B)."""
        self.reset()
        env = venv_env(self.python)
        cap = 900 if order else self.whole_cap
        return plain(self.python, self.tree, order, self.options() if order else self.args,
                     env=env, timeout=self.deadline.left(cap))  # fmt: skip

    def whole(self) -> tuple[Optional[dict[str, str]], int]:
        """The original order's outcomes, and how many runs of it hung (killed after
        :attr:`whole_cap` seconds): a second run when the first hangs, None when both did.
        The project's own time bound still ends the project."""
        for hung in range(2):
            bound_by_project = self.deadline.left(self.whole_cap) < self.whole_cap
            try:
                return outcomes(self.run([])), hung
            except subprocess.TimeoutExpired:
                if bound_by_project:
                    raise
        return None, 2

    def options(self) -> list[str]:
        """The manifest's pytest arguments that do not name a path of the tree."""
        return [a for a in self.args if a.startswith("-") or not (self.tree / a).exists()]

    def outcome(self, order: list[str], test: str) -> str:
        return outcomes(self.run(order)).get(test, "ABSENT")

    def reset(self) -> None:
        reset = self.entry.get("reset") or {}
        for rel in reset.get("remove") or []:
            # "$TMPDIR/x": in the temporary directory the project's runs get (venv_env)
            tmp = rel.startswith("$TMPDIR/")
            path = Path(venv_env(self.python)["TMPDIR"]) / rel[8:] if tmp else self.tree / rel
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        if reset.get("run"):
            plain(self.python, self.tree, list(reset["run"]), self.args,
                  env=venv_env(self.python), timeout=self.deadline.left(300))  # fmt: skip
        for port in reset.get("wait_ports") or []:
            wait_port_free(int(port), self.deadline)


def wait_port_free(port: int, deadline: Deadline, most: float = 120.0) -> None:
    """Until no socket on ``port`` is left in TIME_WAIT (a fixed-port server without
    SO_REUSEADDR cannot bind before), at most ``most`` seconds."""
    end = time.monotonic() + deadline.left(most)
    suffix = f":{port:04X}"
    while time.monotonic() < end:
        waiting = False
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                lines = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            waiting |= any(
                f[1].endswith(suffix) and f[3] == "06" for f in (ln.split() for ln in lines)
            )
        if not waiting:
            return
        time.sleep(2)


def missing_services(entry: dict[str, Any]) -> list[str]:
    """The manifest's ``ports`` (services the tests connect to) that nothing listens on."""
    out = []
    for port in entry.get("ports") or []:
        try:
            socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
        except OSError:
            out.append(str(port))
    return out


def confirm(tree: Tree, row: dict[str, Any]) -> tuple[Optional[Known], str]:
    """A victim passes alone and fails after a polluter; a brittle fails alone and passes
    after a state-setter (or after all of them together)."""
    test = row["test"]
    if not row.get("reproduces", True):
        return None, "did not reproduce by hand"
    brittle = row.get("kind") == "brittle"
    partners = list(row.get("state_setters" if brittle else "polluters") or [])
    alone = tree.outcome([test], test)
    if (alone in FAILED) != brittle:
        return None, f"alone: {alone.lower()}"
    if brittle:
        hits = [p for p in partners if tree.outcome([p, test], test) == "PASSED"]
        if not hits and len(partners) > 1 and tree.outcome([*partners, test], test) == "PASSED":
            hits = partners
    else:
        hits = [p for p in partners if tree.outcome([p, test], test) in FAILED]
    groups = [] if brittle or hits else [
        list(g) for g in row.get("polluter_groups") or []
        if tree.outcome([*g, test], test) in FAILED
    ]  # fmt: skip
    if not hits and not groups:
        return None, "no known partner changed its outcome"
    return Known(test, "brittle" if brittle else "victim", hits, groups), ""


def partners_of(finding: dict[str, Any], kind: str) -> list[list[str]]:
    """The partners a finding names, as groups (single partners are groups of one)."""
    one, many = ("state_setters", "state_setter_groups") if kind == "brittle" else (
        "polluters", "polluter_groups")  # fmt: skip
    return [[p] for p in finding.get(one) or []] + [list(g) for g in finding.get(many) or []]


def holds_for(tree: Tree, kind: str, test: str, group: list[str],
              passing: tuple[str, ...] = PASSING) -> bool:  # fmt: skip
    """Plain pytest agrees: the test fails after the group (victim), passes after it and
    fails alone (brittle); ``passing``: the outcomes that count as passing. When its
    outcome alone in a run of its own file is not the kind's (another module's
    import-time code decides it), the same two runs with the suite collected, as
    orderdep's orders and shuffled runs have it."""
    alone, after = (FAILED, passing) if kind == "brittle" else (passing, FAILED)
    if tree.outcome([test], test) in alone:
        return tree.outcome([*group, test], test) in after
    collected = getattr(tree, "collected", None)
    return (
        collected is not None
        and collected([test], test) in alone
        and collected([*group, test], test) in after
    )


def score_report(tree: Tree, report: dict[str, Any], known: list[Known],
                 listed: set[str], out: Row) -> None:  # fmt: skip
    findings = {f["test"]: f for f in report.get("od_tests", [])}
    tree.suite = list(report.get("tests") or [])
    out.tests, out.od_found = len(report.get("tests", [])), len(findings)
    for row in known:
        finding = findings.get(row.test)
        if finding is None:
            continue
        out.found += 1
        out.right_kind += finding.get("kind") == row.kind
        groups = partners_of(finding, row.kind)
        if any(set(g) & row.named() for g in groups):
            out.right_partner += 1
        elif groups and holds_for(tree, row.kind, row.test, groups[0]):
            out.right_partner += 1  # a partner the manifest does not list, confirmed
    unlisted = [f for t, f in findings.items() if t not in listed]
    out.unlisted = len(unlisted)
    for finding in unlisted[:UNLISTED_CHECKS]:
        kind, test = finding.get("kind"), finding["test"]
        groups = partners_of(finding, kind) if kind else []
        if groups:
            ok = holds_for(tree, kind, test, groups[0], NOT_FAILING)
        else:
            ok = (tree.outcome(list(finding["failing_order"]), test) in FAILED
                  and tree.outcome(list(finding["passing_order"]), test) in NOT_FAILING)  # fmt: skip
        out.unlisted_confirmed += ok
    out.unlisted_unchecked = max(0, len(unlisted) - UNLISTED_CHECKS)


def orderdep(python: Path, verb: list[str], work: Path, tag: str, args: list[str],
             apart: Optional[Path] = None) -> list[str]:  # fmt: skip
    """The command as a user types it in the activated venv, its report in ``work``; the
    results store is the tree's own (``.orderdep/``), as a user's is, so ``fix`` reuses
    ``detect``'s fork check. ``apart``: the ``orderdep`` of a venv of its own, given the
    project's interpreter with ``--python`` (a pipx install)."""
    report = work / f"{tag}-report.json"
    report.unlink(missing_ok=True)
    where = ["--report", str(report)]
    exe = [str(apart), *verb, "--python", str(python)] if apart else [
        str(python.parent / "orderdep"), *verb]  # fmt: skip
    return [*exe, *where, *[f"--pytest-arg={a}" for a in args]]


def apart_exe(work: Path, opts: dict[str, Any]) -> Optional[Path]:
    """With ``apart`` in ``opts``: orderdep's own ``orderdep`` command (made once)."""
    if not opts.get("apart"):
        return None
    return orderdep_apart(work, Path(opts["orderdep"]), Installer(opts.get("installer", "pip")))


def logged(cmd: list[str], cwd: Path, python: Path, work: Path, tag: str,
           cap: float, deadline: Deadline) -> tuple[int, float]:  # fmt: skip
    began = time.monotonic()
    try:
        run = sh(cmd, cwd=cwd, timeout=deadline.left(cap), env=venv_env(python))
    finally:
        wall = time.monotonic() - began
    (work / f"{tag}.out").write_text(run.stdout + "\n--- stderr ---\n" + run.stderr)
    return run.returncode, wall


def repair(entry: dict[str, Any], source: Path, python: Path, work: Path, known: list[Known],
           before: dict[str, str], opts: dict[str, Any], deadline: Deadline,
           out: Row) -> None:  # fmt: skip
    origin = Tree(entry, source, python, deadline)
    origin.whole_cap = whole_cap(out.suite_s)
    origin.reset()  # what the checks above left behind
    copy = work / "copy" / source.name  # where detect ran
    report = json.loads((work / "detect-report.json").read_text())
    b = f"{opts['budget']:g}"
    cmd = orderdep(python, ["fix", ".", "--apply", "--budget", b], work, "fix",
                   list(entry.get("pytest_args") or []), apart_exe(work, opts))  # fmt: skip
    (work / "fix-report.json").write_text(json.dumps(report))
    install_project(python, entry, copy)
    try:
        out.fix_exit, wall = logged(cmd, copy, python, work, "fix", opts["budget"] * 3 + 600,
                                    deadline)  # fmt: skip
        patch = python_diff(source, copy)  # before the checks below write into the copy
        (work / "fix.patch").write_text(patch)
        out.changed_lines = changed_lines(patch)
        out.repeated_blocks = repeated_blocks(patch)
        tree = Tree(entry, copy, python, deadline)
        tree.whole_cap = whole_cap(out.suite_s)
        out.repaired, note = count_repaired(tree, known, patch)
        if note:
            out.lines.append(note)
        ran, hung = tree.whole()
    finally:
        install_project(python, entry, source)
    if hung:
        out.lines.append(f"the original order hung under plain pytest in the patched copy "
                         f"{hung} time(s) (killed after {tree.whole_cap:.0f} s)")  # fmt: skip
    if ran is None:
        out.holds = "no (the original order hung twice)"
    else:
        judge_holds(out, known, before, ran, origin, work)
    out.lines.append(f"fix: exit {out.fix_exit} in {wall:.0f} s, {out.repaired} of "
                     f"{len(known)} repaired, {out.changed_lines} lines; see {work / 'fix.patch'}")  # fmt: skip


def judge_holds(out: Row, known: list[Known], before: dict[str, str], after: dict[str, str],
                origin: Tree, work: Path) -> None:  # fmt: skip
    """Whether the patches hold: every row repaired, and the original order keeps its
    outcomes (``before``: unpatched; ``after``: patched), but for tests that failed in it
    and now pass, and tests whose outcome differs between unpatched runs too."""
    repaired = {row.test for row in known if after.get(row.test) == "PASSED"}
    # other tests failing in the original order that pass now: OD tests no row lists
    # (an unlisted victim of the same polluter), repaired too, not broken
    also = sorted(t for t, o in after.items()
                  if o == "PASSED" and before.get(t) in FAILED and t not in repaired)  # fmt: skip
    if also:
        out.lines.append(f"the patches also make {len(also)} test(s) pass that failed in the "
                         f"original order: {also}")  # fmt: skip
    changed = sorted(t for t in set(before) | set(after)
                     if before.get(t) != after.get(t) and t not in repaired
                     and t not in also and not renamed(t, before, after))  # fmt: skip
    if changed:  # a test whose outcome differs between two unpatched runs too is not the patch's
        again = origin.whole()[0] or before  # hung twice: nothing is taken as flaky
        flaky = {t for t in changed if again.get(t) != before.get(t)}
        if flaky:
            out.lines.append(f"outcomes that differ between unpatched runs too: {sorted(flaky)}")
        changed = [t for t in changed if t not in flaky]
    out.holds = "yes" if known and out.repaired == len(known) and not changed else "no"
    if changed:
        out.holds += f" ({len(changed)} outcomes changed)"
        (work / "fix-changed.txt").write_text(
            "\n".join(f"{t}: {before.get(t, 'absent')} -> {after.get(t, 'absent')}"
                      for t in changed) + "\n")  # fmt: skip


def renamed(test: str, before: dict[str, str], after: dict[str, str]) -> bool:
    """Whether ``test``, present in one run only, is a parametrized test whose ids change
    between processes (built from a set, the clock): its function's outcomes are the same
    in both runs, under other ids."""
    if (test in before) == (test in after) or "[" not in test:
        return False
    base = test.split("[", 1)[0]

    def of(run: dict[str, str]) -> list[str]:
        return sorted(o for t, o in run.items() if t.split("[", 1)[0] == base)

    return of(before) == of(after)


def count_repaired(tree: Any, known: list[Known], patch: str) -> tuple[int, str]:
    """How many ``known`` rows pass under plain pytest in the patched ``tree`` (a victim
    after each of its partners, a brittle alone), and a note when a row passed without
    any patch: it did not reproduce this time, and is not counted as repaired."""
    passed = 0
    for row in known:
        if row.kind == "brittle":
            passed += tree.outcome([row.test], row.test) == "PASSED"
        else:
            passed += all(tree.outcome([*g, row.test], row.test) == "PASSED"
                          for g in [[p] for p in row.partners] + row.groups)  # fmt: skip
    if passed and not patch.strip():
        return 0, (f"no patch: {passed} row(s) passed after their partners anyway (not "
                   "reproduced this time); not counted as repaired")  # fmt: skip
    return passed, ""


def python_diff(source: Path, copy: Path) -> str:
    """``diff -ruN`` of the Python files that differ between the trees (what a patch
    touches; files the tests write are not part of it)."""
    whole = sh(["diff", "-rqN", "-x", ".orderdep", "-x", "__pycache__", "-x", ".pytest_cache",
                str(source), str(copy)]).stdout  # fmt: skip
    out = []
    for line in whole.splitlines():
        parts = line.split(" ")
        if len(parts) == 5 and parts[1].endswith(".py"):
            out.append(sh(["diff", "-uN", parts[1], parts[3]]).stdout)
    return "".join(out)


def unrunnable(run: subprocess.CompletedProcess[str], seen: dict[str, str]) -> Optional[str]:
    """Why plain pytest could not run the suite at all (collection errors, no test, a
    usage error), or None: a suite whose tests ran, some failing, is scored."""
    if run.returncode in (0, 1) and seen:
        return None
    tail = (run.stdout.strip().splitlines() or ["(no output)"])[-1].strip("= ")
    return f"plain pytest exited {run.returncode} with {len(seen)} test outcome(s) ({tail})"


def run_project(entry: dict[str, Any], opts: dict[str, Any], work_dir: str) -> dict[str, Any]:
    """The task: one project, set up and scored within ``opts['time_bound']`` seconds."""
    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    out = Row(entry["name"], label(entry), rows=len(entry.get("known", [])))
    out.by_hand = sum(1 for r in entry.get("known", []) if r.get("reproduces", True))
    if entry.get("status") == "skipped":
        out.status, out.why = "skipped", str(entry.get("why", ""))
        return out.as_dict()
    down = missing_services(entry)
    if down:
        out.status = "not run"
        out.why = f"nothing listens on port {', '.join(down)} (services: {entry.get('services')})"
        return out.as_dict()
    deadline, step = Deadline(float(opts["time_bound"])), "set-up"
    try:
        began = time.monotonic()
        source, python = set_up(entry, work, opts["git_dirs"], Path(opts["orderdep"]),
                                Installer(opts.get("installer", "pip")),
                                apart=bool(opts.get("apart")))  # fmt: skip
        out.setup_s = time.monotonic() - began
        step = "original order"
        tree = Tree(entry, source, python, deadline)
        began = time.monotonic()
        baseline = tree.run([])
        out.suite_s = time.monotonic() - began
        before = outcomes(baseline)
        tail = (baseline.stdout.strip().splitlines() or ["(no output)"])[-1]
        out.lines.append(f"original order (plain pytest, {out.suite_s:.1f} s): {tail}")
        broken = unrunnable(baseline, before)
        if broken is not None:  # a set-up that cannot run the suite scores nothing
            out.status, out.why = "not run", f"original order: {broken}"
            return out.as_dict()
        step = "confirming rows"
        known = []
        for row in entry.get("known", []):
            k, why = confirm(tree, row)
            if k:
                known.append(k)
            elif row.get("reproduces", True):
                out.lines.append(f"not confirmed now: {row['test']} ({why})")
        out.confirmed = len(known)
        if opts.get("confirm_only"):  # set-up and rows checked; orderdep not run
            out.status, out.why = "confirmed only", "--confirm-only: orderdep not run"
            out.lines.append(f"rows confirmed now: {len(known)} of {out.by_hand}")
            return out.as_dict()
        step = "detect"
        tree.reset()  # orderdep's working copies start from this tree, as the rows' runs did
        args = list(entry.get("pytest_args") or [])
        b = f"{opts['budget']:g}"
        cmd = orderdep(python, ["detect", ".", "--classify", "--budget", b, "--seed",
                                str(opts["seed"])], work, "detect", args,
                       apart_exe(work, opts))  # fmt: skip
        # detect and fix run in one copy, as a user's do in one tree; ``source`` stays
        # unpatched for the checks
        copy = fresh_copy(source, work / "copy")
        install_project(python, entry, copy)
        try:
            out.detect_exit, out.detect_wall = logged(cmd, copy, python, work, "detect",
                                                      opts["budget"] * 3 + 600, deadline)  # fmt: skip
        finally:
            install_project(python, entry, source)
        path = work / "detect-report.json"
        report = json.loads(path.read_text()) if path.exists() else {"od_tests": []}
        listed = {r["test"] for r in entry.get("known", [])}
        step = "checking findings"
        score_report(tree, as_listed(report, source, entry), known, listed, out)
        out.lines.append(f"detect: exit {out.detect_exit} in {out.detect_wall:.0f} s, "
                         f"{out.od_found} OD tests; see {work / 'detect.out'}")  # fmt: skip
        if opts.get("fix", True) and path.exists():
            step = "fix"
            repair(entry, source, python, work, known, before, opts, deadline, out)
    except subprocess.TimeoutExpired:
        out.status, out.why = "timed out", f"during {step} (time bound {opts['time_bound']:g} s)"
    except SystemExit as stop:  # set-up said why it cannot go on
        out.status, out.why = "not run", f"{step}: {stop}"
    return out.as_dict()
