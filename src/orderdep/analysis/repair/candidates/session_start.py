"""Roots put back, before every test, to what they held when the session started.

The ``autouse`` candidate saves a root before each test and restores it after; it cannot
undo a change made *between* tests: by a module's ``teardown_module``, a class's
``tearDownClass`` or a wide fixture's teardown, which run after the last test's
function-scoped fixtures have ended, and whose change the next test's fixture would save
as if it were the starting state. Here a session-scoped fixture deep-copies the root the
first time a test asks for it (before any test has run) and an autouse fixture puts that
copy back before every test, both in the nearest common ``conftest.py`` of the victim and
its polluters, through ``monkeypatch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, friendly, short_name
from orderdep.analysis.repair.candidates.fixture_candidates import conftest_for, fixture_slug
from orderdep.analysis.repair.candidates.guard_statements import holds_modules
from orderdep.analysis.repair.candidates.value_literals import differing_attributes
from orderdep.analysis.repair.locate.module_names import ModuleNames, attribute_reference
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding

# imports, the session fixture's statements (ending with its return), the autouse one's
Start = tuple[list[str], list[str], list[str]]


def start_statements(root: RootInfo, names: ModuleNames, saved: str) -> Optional[Start]:
    """How to save ``root`` at the start of the session and put it back from the fixture
    value ``saved``: only the attributes that differ, for an object changed in place."""
    if root.kind not in ("global", "classattr") or not root.module or not root.attrs:
        return None
    if not root.passing.present or holds_modules(root.passing.desc):
        return None  # modules cannot be deep-copied
    ref, ref_imports = attribute_reference(root.module, root.attrs, names, root.shadowed)
    imports = [*ref_imports, "import copy"]
    attrs = differing_attributes(root)
    if attrs:
        listed = ", ".join(repr(a) for a in attrs) + ("," if len(attrs) == 1 else "")
        snapshot = [
            f"names = ({listed})",
            f"return {{name: copy.deepcopy(getattr({ref}, name)) for name in names}}",
        ]
        loop = (
            f"for name, value in {saved}.items():\n"
            f"    monkeypatch.setattr({ref}, name, copy.deepcopy(value))"
        )
        return imports, snapshot, [loop]
    owner, owner_imports = attribute_reference(root.module, root.attrs[:-1], names, root.shadowed)
    if not owner:
        return None
    attr = root.attrs[-1]
    imports = [*owner_imports, *(i for i in imports if i not in owner_imports)]
    put = f"monkeypatch.setattr({owner}, {attr!r}, copy.deepcopy({saved}))"
    return imports, [f"return copy.deepcopy({ref})"], [put]


def session_start_candidates(
    project: Path, finding: ODFinding, roots: Sequence[RootInfo], what: str
) -> list[Candidate]:
    """One candidate putting every root back before each test (two fixtures per root)."""
    conftest, names = conftest_for(project, finding)
    insertions: list[Insertion] = []
    for root in roots:
        restore = fixture_slug(root)
        saved = restore.replace("_restore_", "_", 1) + "_at_start"
        got = start_statements(root, names, saved)
        if got is None:
            return []
        imports, snapshot, statements = got
        insertions.append(
            Insertion(
                f"{conftest}::{saved}", (*imports, *snapshot), (), None,
                f"What {friendly(root.name)} held when the session started.",
                edit="session_fixture",
            )
        )  # fmt: skip
        comment = (
            f"Put {friendly(root.name)} back before every test "
            f"({short_name(finding.test)} needs it)."
        )
        insertions.append(
            Insertion(
                f"{conftest}::{restore}", (*imports, *statements), ("monkeypatch", saved),
                None, comment, edit="autouse",
            )
        )  # fmt: skip
    description = f"autouse fixture in {conftest} puts back what {what} held at the start"
    return [Candidate("fixture", description, insertions, roots=tuple(r.name for r in roots))]
