"""Venv set-up for the corpus runner with pip against uv, side by side.

For each chosen project of a manifest: a new venv with the project's Python, then its
``requirements`` and pytest, made ``--rounds`` times with each installer, alternating
(pip, uv, pip, uv, ...) so both see the same machine load; the first uv round fills uv's
own cache (pip's is warm from earlier runs on this machine), so it is shown apart.
Ratios are uv / pip of the median times.

Usage: python benchmarks/bench_installer.py [--project NAME ...] [--rounds 3]
       [--manifest FILE] [--work DIR] [--no-doc]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchdoc import table, write_section
from realsetup import Installer, interpreter

from corpus import MANIFEST

DEFAULT = ["reactobus", "django-hug", "feature_engine"]
HEADERS = ["project", "requirements", "pip (s, median)", "uv first (s)", "uv (s, median)",
           "uv / pip"]  # fmt: skip


def one(tool: Installer, entry: dict[str, object], where: Path) -> float:
    shutil.rmtree(where, ignore_errors=True)
    began = time.monotonic()
    made = tool.venv(interpreter(str(entry.get("python") or "") or None), where)
    if made.returncode:
        raise SystemExit(f"{tool.name}: cannot make a venv: {made.stderr[-300:]}")
    python = where / "bin" / "python"
    reqs = [str(r) for r in entry.get("requirements") or []]  # type: ignore[attr-defined]
    done = tool.install(python, reqs or ["pytest"], where)
    if done.returncode:
        raise SystemExit(f"{tool.name}: cannot install {reqs}: {done.stderr[-300:]}")
    return time.monotonic() - began


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--project", action="append", default=[])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--manifest", type=Path, default=MANIFEST)
    p.add_argument("--work", type=Path, default=None)
    p.add_argument("--no-doc", action="store_true")
    opts = p.parse_args()
    entries = {e["name"]: e for e in json.loads(opts.manifest.read_text())["projects"]}
    work = opts.work or Path(tempfile.mkdtemp(prefix="orderdep-installer-"))
    pip, uv = Installer("pip"), Installer("uv")
    rows = []
    for name in opts.project or DEFAULT:
        entry = entries[name]
        first_uv = one(uv, entry, work / "uv")
        times: dict[str, list[float]] = {"pip": [], "uv": []}
        for _ in range(opts.rounds):
            times["pip"].append(one(pip, entry, work / "pip"))
            times["uv"].append(one(uv, entry, work / "uv"))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append([name, len(entry.get("requirements") or []), f"{med['pip']:.1f}",
                     f"{first_uv:.1f}", f"{med['uv']:.1f}", f"{med['uv'] / med['pip']:.2f}"])  # fmt: skip
        print(table(HEADERS, rows[-1:]).splitlines()[-1], flush=True)
    shutil.rmtree(work, ignore_errors=True)
    body = (
        "A venv with the project's Python and its manifest `requirements` (or pytest), made "
        "with pip (`python -m venv`, `pip install`) and with uv (`uv venv --seed`, `uv pip "
        "install` given pip's configured indexes, links and constraints), alternating, "
        f"{opts.rounds} rounds each after one uv round that fills uv's cache (*uv first*). "
        "The corpus runner takes `--installer uv` or `--installer pip` (default).\n\n"
        + table(HEADERS, rows)
    )
    if not opts.no_doc:
        write_section("Corpus set-up: pip against uv", body)


if __name__ == "__main__":
    main()
