"""What ``orderdep fix`` found per OD test, kept for the HTML report (``orderdep.fixes/1``).

Layout of ``PROJECT/.orderdep/fixes.json``::

    {"schema": "orderdep.fixes/1",
     "fixes": {test id: {"kind": "victim" | "brittle", "fixed": bool, "reproduced": bool,
                         "strategy": str | null, "description": str | null,
                         "size": int, "verification": str | null,
                         "polluted": [root, ...], "patch": "patches/<name>.patch" | null,
                         "notes": [...]}}}

Each ``orderdep fix`` run updates the entries of the tests it repaired and keeps the
others. ``patch`` is relative to ``.orderdep/``. ``reproduced`` is false for a test that
passed in its failing order (nothing to fix: a patch applied since may have fixed it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

from orderdep.analysis.repair.fix_result import FixResult

SCHEMA = "orderdep.fixes/1"
FIXES_FILE = Path(".orderdep") / "fixes.json"


def fix_entry(result: FixResult, patch: Optional[Path], directory: Path) -> dict[str, Any]:
    """The file's entry for one repaired OD test (``patch``: where its diff was written,
    under ``directory``, the report's)."""
    fix = result.fix
    debug = result.debug
    polluted = list(debug.polluted or debug.together) if debug is not None else []
    rel = patch.relative_to(directory).as_posix() if patch is not None else None
    return {
        "kind": result.kind,
        "fixed": fix is not None,
        "reproduced": result.reproduced,  # False: it passed in its failing order
        "strategy": fix.strategy if fix is not None else None,
        "description": fix.description if fix is not None else None,
        "size": fix.size if fix is not None else 0,
        "verification": fix.verification.summary() if fix is not None else None,
        "polluted": polluted,
        "patch": rel,
        "notes": list(result.notes),
    }


def load_fixes(directory: Path) -> dict[str, dict[str, Any]]:
    """Test id -> entry, from ``directory`` (the report's); empty when the file is
    missing or not one of ours."""
    path = directory / FIXES_FILE.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return {}
    fixes = data.get("fixes")
    if not isinstance(fixes, dict):
        return {}
    return {str(k): v for k, v in fixes.items() if isinstance(v, dict)}


def save_fixes(directory: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Merge ``entries`` into the file in ``directory`` (the report's), atomically."""
    merged = {**load_fixes(directory), **entries}
    path = directory / FIXES_FILE.name
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    text = json.dumps({"schema": SCHEMA, "fixes": dict(sorted(merged.items()))}, indent=2)
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)
