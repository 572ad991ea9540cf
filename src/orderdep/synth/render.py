"""Write a generated suite to disk: app package, test modules and classes, conftest, config.

Test modules are named so that pytest's collection order (files sorted by name, then
definition order) is exactly the order the layout chose.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from orderdep.synth import app_modules, appcode
from orderdep.synth.planting import Planting, TestCase

if TYPE_CHECKING:
    from orderdep.synth.generate import SuitePlan

CLASS_SUFFIXES = (
    "Defaults", "Updates", "Lookup", "Formatting", "Errors", "Roundtrip", "Limits",
    "Listing", "Validation", "Workflow", "Edges", "Integration",
)  # fmt: skip

PYPROJECT = """\
[project]
name = "app"
version = "0.3.0"
description = "A small order-management application"
requires-python = ">=3.9"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
"""

GITIGNORE = "__pycache__/\n.pytest_cache/\n.testdata/\nvar/\n"

CONFTEST_HEAD = '''\
from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
{app_import}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def workspace() -> Iterator[Path]:
    """Run the session from the project root with its own home and data directories."""
    base = ROOT / ".testdata" / f"{{os.getpid()}}-{{uuid.uuid4().hex[:8]}}"
    (base / "home").mkdir(parents=True)
    (base / "data").mkdir()
    names = ("HOME", "USERPROFILE", "APP_DATA_DIR")
    saved = {{name: os.environ.get(name) for name in names}}
    os.environ["HOME"] = os.environ["USERPROFILE"] = str(base / "home")
    os.environ["APP_DATA_DIR"] = str(base / "data")
    start = os.getcwd()
    os.chdir(ROOT)
    yield base
    os.chdir(start)
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(base, ignore_errors=True)
'''


@dataclass
class Placed:
    """A test case at a position: module index and sort key within the module."""

    case: TestCase
    module: int
    key: float
    origin: Optional[tuple[int, str]]  # (planting index, role), None for fillers

    @property
    def sort_key(self) -> tuple[int, float]:
        return (self.module, self.key)


def _sort_imports(lines: Iterable[str]) -> str:
    """Import lines grouped like isort does: stdlib, pytest, then one ``from app import``."""
    stdlib: set[str] = set()
    third: set[str] = set()
    app: set[str] = set()
    for line in lines:
        if line.startswith("from app import "):
            app.update(x.strip() for x in line[len("from app import ") :].split(","))
        elif "pytest" in line:
            third.add(line)
        else:
            stdlib.add(line)
    groups = [sorted(stdlib, key=lambda s: (s.startswith("from"), s)), sorted(third)]
    if app:
        line = f"from app import {', '.join(sorted(app))}"
        if len(line) > 88:
            line = "from app import (\n" + "".join(f"    {m},\n" for m in sorted(app)) + ")"
        groups.append([line])
    return "\n\n".join("\n".join(g) for g in groups if g)


_BLOCK_STARTS = ("def ", "class ", "@")


def _top_level(code: str) -> list[str]:
    return [ln for ln in code.splitlines() if ln and not ln[0].isspace() and ln[0] not in ")]}"]


def join_sections(parts: Sequence[str]) -> str:
    """Top-level code parts joined as formatters do: two blank lines around defs/classes."""
    out = parts[0].rstrip("\n") if parts else ""
    for prev, part in zip(parts, parts[1:]):
        before, after = _top_level(prev), _top_level(part)
        blocks = (before and before[-1].startswith(_BLOCK_STARTS)) or (
            after and after[0].startswith(_BLOCK_STARTS)
        )
        gap = "\n\n\n" if blocks else "\n\n"
        out += gap + part.strip("\n")
    return out + "\n"


def _function(case: TestCase, name: str, indent: str, method: bool) -> list[str]:
    params = (["self"] if method else []) + list(case.fixtures)
    lines = [f"{indent}def {name}({', '.join(params)}):"]
    lines += [f"{indent}    {line}" if line else "" for line in case.body.splitlines()]
    return lines


def _render_module(
    entries: Sequence[Placed], module: str, rng: random.Random, class_share: float
) -> tuple[str, list[str]]:
    """Source of one test module and the node id of each entry (same order)."""
    topic = "".join(w.title() for w in module[len("test_") :].split("_") if not w.isdigit())
    used: set[str] = set()

    def unique(name: str) -> str:
        out, k = name, 2
        while out in used:
            out, k = f"{name}_{k}", k + 1
        used.add(out)
        return out

    suffixes = rng.sample(CLASS_SUFFIXES, len(CLASS_SUFFIXES))
    blocks: list[tuple[Optional[str], list[int]]] = []
    i = 0
    while i < len(entries):
        left = len(entries) - i
        if left >= 2 and rng.random() < class_share:
            size = rng.randint(2, min(5, left))
            suffix = suffixes[len(blocks) % len(suffixes)]
            blocks.append((unique(f"Test{topic}{suffix}"), list(range(i, i + size))))
            i += size
        else:
            blocks.append((None, [i]))
            i += 1

    imports: set[str] = set()
    preludes: dict[str, str] = {}
    for entry in entries:
        imports |= entry.case.imports
        for key, code in entry.case.preludes:
            preludes.setdefault(key, code)
    sections = [_sort_imports(imports)] if imports else []
    assignments = [code for code in preludes.values() if "\n" not in code]
    if assignments:
        sections.append("\n".join(assignments))
    sections += [code for code in preludes.values() if "\n" in code]

    ids = [""] * len(entries)
    path = f"tests/{module}.py"
    for cls, members in blocks:
        if cls is None:
            name = unique(entries[members[0]].case.name)
            sections.append("\n".join(_function(entries[members[0]].case, name, "", False)))
            ids[members[0]] = f"{path}::{name}"
            continue
        lines = [f"class {cls}:"]
        for n, k in enumerate(members):
            name = unique(entries[k].case.name)
            lines += ([""] if n else []) + _function(entries[k].case, name, "    ", True)
            ids[k] = f"{path}::{cls}::{name}"
        sections.append("\n".join(lines))
    return join_sections(sections), ids


def _app_modules(plantings: Sequence[Planting], cases: Iterable[TestCase]) -> dict[str, list[str]]:
    used: dict[str, list[str]] = {}
    for case in cases:
        for line in case.imports:
            if line.startswith("from app import "):
                for name in line[len("from app import ") :].split(","):
                    used.setdefault(name.strip(), [])
    for planting in plantings:
        if planting.conftest:
            used.setdefault("catalog", [])
        for module, snippet in planting.app:
            used.setdefault(module, []).append(snippet)
    return {m: used[m] for m in sorted(used)}


def render_project(
    root: Path,
    plantings: Sequence[Planting],
    placed: Sequence[Placed],
    modules: Sequence[str],
    plan: SuitePlan,
    rng: random.Random,
) -> list[str]:
    """Write the project under ``root``; return the node id of each entry of ``placed``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    app = root / "app"
    app.mkdir()
    (app / "__init__.py").write_text(appcode.APP_INIT, encoding="utf-8")
    for module, snippets in _app_modules(plantings, (p.case for p in placed)).items():
        header = (
            appcode.balancer_source(plan.nd_rate)
            if module == "balancer"
            else app_modules.HEADERS[module]
        )
        parts = [header, *(textwrap.dedent(s) for s in snippets)]
        (app / f"{module}.py").write_text(join_sections(parts), encoding="utf-8")
    for rel, content in sorted(f for p in plantings for f in p.files.items()):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    tests_dir = root / "tests"
    tests_dir.mkdir()
    fixtures = [code for p in plantings for code in p.conftest]
    conftest = CONFTEST_HEAD.format(app_import="\nfrom app import catalog\n" if fixtures else "")
    conftest = join_sections([conftest, *fixtures])
    (tests_dir / "conftest.py").write_text(conftest, encoding="utf-8")

    ids = [""] * len(placed)
    for m, module in enumerate(modules):
        members = sorted(
            (i for i, p in enumerate(placed) if p.module == m), key=lambda i: placed[i].key
        )
        if not members:
            continue
        source, module_ids = _render_module(
            [placed[i] for i in members], module, rng, plan.class_share
        )
        (tests_dir / f"{module}.py").write_text(source, encoding="utf-8")
        for i, node_id in zip(members, module_ids):
            ids[i] = node_id
    return ids
