"""Paths into orderdep's working copy of the project, written as the project's own.

orderdep runs the tests in a copy of the project (``$TMPDIR/orderdep-…/w0/tree/<name>``),
so a value the debugger captured there (``GitPathTool._cwd``, a fixtures directory a test
module computed from its ``__file__``) names the copy. Written as it is, a restore would
point into a directory that is gone after the run. Inside the project, that path is
where the test file's own directory leads::

    '/tmp/orderdep-x1/w0/tree/shop/tests/fixtures'
    -> os.path.join(os.path.dirname(__file__), 'fixtures')

:func:`relocated` rewrites each string literal that names the copy (or a path in it) in
a candidate's statements that way, relative to the file the statement goes into.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
import tempfile
from pathlib import Path

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.engine.tempdirs import PREFIX


def _copy_literal(project_name: str) -> re.Pattern[str]:
    """A quoted string naming a working copy of a project called ``project_name``, or a
    path in it (group 3: what follows the copy's root)."""
    base = re.escape(os.path.join(tempfile.gettempdir(), PREFIX))
    root = rf"{base}[^/'\"\s]*/(?:[^/'\"\s]+/)*?tree/{re.escape(project_name)}"
    return re.compile(rf"(['\"])({root})((?:/[^'\"]*)?)\1")


def _relative(file: str, inside: str) -> str:
    """``os.path`` expression for the project path ``inside`` (``/a/b`` under the root)
    from the directory of the project file ``file``."""
    rel = posixpath.relpath(inside.strip("/") or ".", posixpath.dirname(file) or ".")
    here = "os.path.dirname(__file__)"
    return here if rel == "." else f"os.path.join({here}, {rel!r})"


def relocated(cand: Candidate, project: Path) -> Candidate:
    """``cand`` with every literal naming orderdep's copy of ``project`` written relative
    to its statement's own file (``import os`` added); ``cand`` itself when none does."""
    pattern = _copy_literal(project.resolve().name)
    insertions: list[Insertion] = []
    changed = False
    for ins in cand.insertions:
        statements = []

        def expression(m: re.Match[str], file: str = ins.file) -> str:
            return _relative(file, m.group(3))

        for st in ins.statements:
            new = pattern.sub(expression, st)
            changed = changed or new != st
            statements.append(new)
        if statements != list(ins.statements):
            statements = ["import os", *[s for s in statements if s != "import os"]]
        insertions.append(dataclasses.replace(ins, statements=tuple(statements)))
    return dataclasses.replace(cand, insertions=insertions) if changed else cand


__all__ = ["relocated"]
