"""Polluters that change a project file through a handle: each test works on its own copy.

A module's xunit ``setup_module`` (or a wide fixture) writes a data file in the working
directory once; a function fixture opens it (an HDF5 file, a database) and a polluter
changes it through that handle, which nobody closes. Restoring the file's bytes before
the victim does not help: the library shares the open handle (and its unsaved state)
with the victim's new one, or refuses to create the file again while it is open, and in
the failing order the file's "initial" value is absent (``setup_module`` runs inside the
order). The debugger then names the file among the roots that differ, but no restore
explains the failure.

The fix a maintainer would write: the tests of the polluter's module work on a copy in
``tmp_path``. An autouse fixture there copies the file into ``tmp_path`` and changes the
working directory to it (``monkeypatch.chdir``, undone when the test ends); relative
paths then name the copy, and the original keeps the content ``setup_module`` gave it.
Verified like every candidate (a test that needs other files of the working directory
rejects it).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.candidates.root_refs import CWD
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding


def _copied_files(dbg: DebugResult) -> list[RootInfo]:
    """Project files (not directories, the temp dir or HOME) present before the victim
    in its failing order that differ from the passing order."""
    return [
        r
        for r in dbg.differing
        if r.kind == "file"
        and r.path
        and not r.path.startswith(("$TMP/", "~/", CWD, "/"))
        and not r.path.endswith("/")
        and r.failing.present
    ]


def copy_statements(paths: Sequence[str]) -> list[str]:
    """Statements copying each relative path into ``tmp_path`` and moving there."""
    out = ["import os", "import shutil"]
    for path in paths:
        folder = posixpath.dirname(path)
        make = f"\n    os.makedirs(tmp_path / {folder!r}, exist_ok=True)" if folder else ""
        out.append(
            f"if os.path.exists({path!r}):{make}\n    shutil.copy({path!r}, tmp_path / {path!r})"
        )
    out.append("monkeypatch.chdir(tmp_path)")
    return out


def own_copy_candidates(finding: ODFinding, dbg: DebugResult) -> list[Candidate]:
    """An autouse fixture in each polluter's module giving every test there its own copy
    of the project files that differ, when restoring the roots did not explain the
    failure (see the module doc)."""
    if dbg.found or dbg.kind != "victim":
        return []
    files = _copied_files(dbg)
    polluters = list(
        dict.fromkeys([*finding.polluters, *(m for g in finding.polluter_groups for m in g)])
    )
    if not files or not polluters:
        return []
    paths = [str(r.path) for r in files]
    name = "_own_copy_of_" + re.sub(r"[^0-9a-zA-Z]+", "_", posixpath.basename(paths[0])).strip("_")
    statements = tuple(copy_statements(paths))
    # the same text for every victim: their patches then add one fixture, not two
    comment = (
        f"Tests here change {', '.join(paths)} through handles they keep open: each works "
        "on its own copy, so the original stays as it was created."
    )
    insertions = [
        Insertion(
            f"{module}::{name}",
            statements,
            ("monkeypatch", "tmp_path"),
            None,
            comment,
            edit="autouse",
        )
        for module in dict.fromkeys(p.split("::", 1)[0] for p in polluters)
    ]
    what = ", ".join(paths)
    return [Candidate("fixture", f"autouse fixture: each test gets its own copy of {what}",
                      insertions)]  # fmt: skip
