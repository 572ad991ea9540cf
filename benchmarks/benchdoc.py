"""Writes one benchmark's section of docs/benchmarks.md (between markers), with the machine."""

from __future__ import annotations

import os
import platform
import re
import shlex
import sys
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = (
    "# orderdep benchmarks\n\n"
    "Each section is written by the script it names; rerun the command to refresh it.\n"
    "Timings are ratios measured side by side in one run on a shared machine.\n"
)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def write_section(name: str, body: str, argv: list[str] | None = None) -> None:
    """Replace (or append) the section ``name`` of docs/benchmarks.md.

    ``argv``: the command line to show (default ``sys.argv``), e.g. with local paths
    replaced by placeholders.
    """
    command = shlex.join(["python", *(sys.argv if argv is None else argv)])
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = (
        f"<!-- begin {name} -->\n## {name}\n\n"
        f"Command: `{command}`  \nMachine: {machine()}  \nRun: {stamp}\n\n"
        f"{body.strip()}\n<!-- end {name} -->\n"
    )
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else HEADER
    pattern = re.compile(
        rf"<!-- begin {re.escape(name)} -->.*?<!-- end {re.escape(name)} -->\n", re.S
    )
    if pattern.search(text):
        text = pattern.sub(lambda _m: section, text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")


def table(headers: list[str], rows: list[list[object]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)
