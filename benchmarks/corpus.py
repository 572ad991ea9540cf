"""The real-world corpus as one command: every project of a manifest set up, its known
order-dependent rows confirmed with plain pytest, then ``orderdep detect --classify`` and
``orderdep fix --apply`` scored (``corpus_project.py`` says how), projects in parallel
as Dask tasks.

Usage:
  python benchmarks/corpus.py --work DIR --clones DIR [--manifest FILE ...] [--project NAME ...]
         [--budget 120] [--seed 1] [--workers 2 | --dask ADDRESS | --workers 0]
         [--time-bound SECONDS] [--installer pip|uv] [--no-fix] [--again]
         [--orderdep-rev REV] [--label TEXT] [--no-doc] [--confirm-only]

Sources: a PyPI sdist (``spec``) is downloaded; a git project (``repo``, ``commit``) is
archived from a clone in ``--clones DIR`` (``DIR/OWNER+NAME``, ``DIR/OWNER+NAME/repo`` or
``DIR/NAME``) or ``--git-dir NAME=PATH``. Each project gets ``WORK/NAME`` (its venv,
tree, logs, patch and ``result.json``). Resumable: a project whose ``result.json`` was
made with the same orderdep, budget, seed, installer and label, and the same manifest
entry, is not run again (``--again`` runs it anyway). ``--workers N`` starts a Dask ``LocalCluster`` of N
single-threaded worker processes; ``--dask ADDRESS`` uses a running scheduler (the
runner's modules are uploaded to its workers, which must see the same paths);
``--workers 0`` runs the projects one after another in this process. Each project is
bounded by ``--time-bound`` (default: 4 budgets + 30 minutes); past it the step running
is killed and the row says which it was. ``--confirm-only`` sets projects up and confirms
their rows with plain pytest, without running orderdep (for checking a new manifest entry:
nothing is kept or written).

Writes, per manifest, its section of docs/benchmarks.md ("Pre-registered IDoFT sample",
or the manifest's ``section``): rows of earlier runs are kept as they came out; a run adds its rows
and a totals row, with its date and label.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus_doc import write_rows  # noqa: E402
from corpus_project import run_project  # noqa: E402
from patchstats import repeated_blocks  # noqa: E402
from realsetup import orderdep_tree, scratch_dir  # noqa: E402

MANIFEST = HERE / "manifests" / "idoft_sample.json"
MODULES = ("patchstats.py", "realsetup.py", "corpus_project.py")


def clone_of(entry: dict[str, Any], clones: Optional[Path]) -> Optional[Path]:
    if clones is None or "repo" not in entry:
        return None
    owner_name = entry["repo"].replace("/", "+")
    for path in (clones / owner_name / "repo", clones / owner_name, clones / entry["name"]):
        if path.exists():
            return path
    return None


def run_key(opts: argparse.Namespace, who: str) -> dict[str, Any]:
    return {"orderdep": who, "budget": opts.budget, "seed": opts.seed,
            "installer": opts.installer, "label": opts.label, "fix": not opts.no_fix,
            **({"apart": True} if opts.apart else {})}  # fmt: skip


def project_key(key: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """The run's key and the project's manifest entry (a changed entry runs again)."""
    text = json.dumps(entry, sort_keys=True).encode()
    return {**key, "entry": hashlib.sha256(text).hexdigest()[:16]}


def done_before(work: Path, key: dict[str, Any]) -> Optional[dict[str, Any]]:
    path = work / "result.json"
    if not path.exists():
        return None
    saved = json.loads(path.read_text())
    if saved.get("key") != key:
        return None
    row: dict[str, Any] = saved["row"]
    patch = work / "fix.patch"
    if "repeated_blocks" not in row:  # kept by a runner that did not count them yet
        row["repeated_blocks"] = repeated_blocks(patch.read_text()) if patch.exists() else None
    return row


def results(
    todo: list[tuple[dict[str, Any], dict[str, Any], str]], opts: argparse.Namespace
) -> Iterator[dict[str, Any]]:
    """Each project's row as it ends: in place, on a LocalCluster, or on ``--dask``."""
    if not todo:
        return
    if opts.workers == 0 and not opts.dask:
        for entry, task_opts, work in todo:
            yield run_project(entry, task_opts, work)
        return
    from distributed import Client, LocalCluster, as_completed

    if opts.dask:
        client = Client(opts.dask)
        for module in MODULES:
            client.upload_file(str(HERE / module))
    else:
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p
        )
        cluster = LocalCluster(n_workers=opts.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        client = Client(cluster)
    try:
        futures = [client.submit(run_project, e, o, w, pure=False, key=f"project-{e['name']}")
                   for e, o, w in todo]  # fmt: skip
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if not opts.dask:
            cluster.close()


def main(argv: Optional[list[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--manifest", type=Path, action="append", default=[],
                   help="a manifest; repeatable (default: the pre-registered sample)")  # fmt: skip
    p.add_argument("--project", action="append", default=[])
    p.add_argument("--budget", type=float, default=120.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--clones", type=Path, default=None)
    p.add_argument("--git-dir", action="append", default=[], metavar="NAME=PATH")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--dask", default=None, metavar="ADDRESS")
    p.add_argument("--time-bound", type=float, default=None)
    p.add_argument("--installer", choices=("pip", "uv"), default="pip")
    p.add_argument("--no-fix", action="store_true")
    p.add_argument("--again", action="store_true")
    p.add_argument("--orderdep-rev", default=None, metavar="REV")
    p.add_argument("--label", default="")
    p.add_argument("--no-doc", action="store_true")
    p.add_argument("--apart", action="store_true",
                   help="install orderdep in a venv of its own (as pipx does) and run it with "
                   "--python the project's interpreter: the pytest the project pins stays")  # fmt: skip
    p.add_argument("--confirm-only", action="store_true",
                   help="set up and confirm rows with plain pytest; orderdep is not run")  # fmt: skip
    opts = p.parse_args(argv)
    manifests = [(path, json.loads(path.read_text())) for path in opts.manifest or [MANIFEST]]
    chosen = [(path, e) for path, m in manifests for e in m["projects"]
              if not opts.project or e["name"] in opts.project]  # fmt: skip
    unknown = set(opts.project) - {e["name"] for _, m in manifests for e in m["projects"]}
    if unknown:
        raise SystemExit(f"no project {sorted(unknown)} in {[str(m) for m, _ in manifests]}")
    git_dirs = dict(a.split("=", 1) for a in opts.git_dir)
    orderdep, who = orderdep_tree(opts.orderdep_rev, scratch_dir())
    key = run_key(opts, who)
    task_opts = {"budget": opts.budget, "seed": opts.seed, "installer": opts.installer,
                 "fix": not opts.no_fix, "orderdep": str(orderdep),
                 "confirm_only": opts.confirm_only, "apart": opts.apart,
                 "time_bound": opts.time_bound or opts.budget * 4 + 1800}  # fmt: skip
    rows: dict[str, dict[str, Any]] = {}
    todo = []
    for _, entry in chosen:
        work = (opts.work / entry["name"]).resolve()
        mine = project_key(key, entry)
        saved = None if opts.again or opts.confirm_only else done_before(work, mine)
        if saved is not None:
            print(f"== {entry['name']}: kept from an earlier run ({work / 'result.json'})")
            rows[entry["name"]] = saved
            continue
        dirs = {entry["name"]: Path(git_dirs[entry["name"]])} if entry["name"] in git_dirs else {}
        clone = clone_of(entry, opts.clones)
        if clone is not None and not dirs:
            dirs = {entry["name"]: clone}
        todo.append((entry, {**task_opts, "git_dirs": dirs}, str(work)))
    began = time.monotonic()
    entries = {entry["name"]: entry for entry, _, _ in todo}
    for row in results(todo, opts):
        work = (opts.work / row["name"]).resolve()
        if not opts.confirm_only:
            mine = project_key(key, entries[row["name"]])
            (work / "result.json").write_text(json.dumps({"key": mine, "row": row}, indent=1))
        rows[row["name"]] = row
        status = row["status"] + (f" ({row['why']})" if row["why"] else "")
        print(f"== {row['label']} (orderdep {who}): {status}", *row["lines"], sep="\n  ")
        patch = work / "fix.patch"
        if patch.exists() and patch.read_text().strip():
            print(patch.read_text())
    print(f"{len(todo)} projects run in {time.monotonic() - began:.0f} s")
    if not opts.no_doc and not opts.confirm_only:
        stamp = time.strftime("%Y-%m-%d", time.gmtime())
        for path, manifest in manifests:
            ordered = [rows[e["name"]] for m, e in chosen if m == path and e["name"] in rows]
            if ordered:
                write_rows(manifest, path, ordered, f"{stamp} {opts.label}".strip(), who, opts)


if __name__ == "__main__":
    main()
