"""The suite model: a project's tests in their original order and their grouping.

Pure data over pytest node ids (``pkg/test_mod.py::TestCls::test_x[param]``). The engine
fills it from a real collection; everything else only reads it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from orderdep.core.volatile import volatile_cause
from orderdep.errors import UnknownTestsError

GroupLevel = Literal["module", "class", "none"]
GROUP_LEVELS: tuple[GroupLevel, ...] = ("module", "class", "none")


def split_node_id(node_id: str) -> tuple[str, list[str], str]:
    """Split a node id into (module path, enclosing class names, test name with params)."""
    base, bracket, params = node_id.partition("[")
    parts = base.split("::")
    name = parts[-1] + (bracket + params if bracket else "")
    return parts[0], parts[1:-1], name


@dataclass(frozen=True)
class TestInfo:
    """One collected test: its id and where it lives."""

    __test__ = False

    id: str
    module: str  # node id of its module (file path relative to rootdir)
    cls: str | None = None  # node id of its innermost class, if any
    file: str = ""  # path of the file, relative to rootdir

    @property
    def package(self) -> str:
        """The directory holding the module ("" for the rootdir)."""
        head, _, _ = self.module.rpartition("/")
        return head

    def group(self, level: GroupLevel) -> str:
        """The group this test belongs to at ``level`` (class falls back to module)."""
        if level == "none":
            return ""
        if level == "class" and self.cls:
            return self.cls
        return self.module

    @classmethod
    def from_node_id(cls, node_id: str) -> TestInfo:
        module, classes, _ = split_node_id(node_id)
        klass = "::".join([module, *classes]) if classes else None
        return cls(id=node_id, module=module, cls=klass, file=module)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "module": self.module, "cls": self.cls, "file": self.file}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestInfo:
        return cls(
            id=data["id"], module=data["module"], cls=data.get("cls"), file=data.get("file", "")
        )


@dataclass
class Suite:
    """The tests of a project in original (collection) order."""

    tests: list[TestInfo]
    rootdir: str = ""
    # pytest's rootdir relative to the project, when it is a directory inside it (an ini
    # file in ``tests/``): the node ids' paths start there ("" when they are the project's)
    id_root: str = ""
    _by_id: dict[str, TestInfo] = field(default_factory=dict, repr=False, compare=False)
    # Where the collecting process found the project's code, when it matters: modules
    # imported from the original tree instead of the working copy ("from_origin"), and
    # top-level packages of a non-editable install ("installed").
    code: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id = {t.id: t for t in self.tests}

    @classmethod
    def from_ids(cls, ids: Iterable[str], rootdir: str = "") -> Suite:
        return cls([TestInfo.from_node_id(i) for i in ids], rootdir=rootdir)

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.tests]

    def __len__(self) -> int:
        return len(self.tests)

    def __contains__(self, test_id: object) -> bool:
        return test_id in self._by_id

    def __getitem__(self, test_id: str) -> TestInfo:
        return self._by_id[test_id]

    def group_of(self, test_id: str, level: GroupLevel) -> str:
        info = self._by_id.get(test_id) or TestInfo.from_node_id(test_id)
        return info.group(level)

    def groups(self, level: GroupLevel, ids: Sequence[str] | None = None) -> dict[str, list[str]]:
        """Groups at ``level`` in order of first appearance, each with its tests in order."""
        out: dict[str, list[str]] = {}
        for test_id in self.ids if ids is None else ids:
            out.setdefault(self.group_of(test_id, level), []).append(test_id)
        return out

    def unknown(self, ids: Iterable[str]) -> list[str]:
        """The ids (deduplicated, in order) that are not in this suite."""
        seen: dict[str, None] = {}
        for i in ids:
            if i not in self._by_id:
                seen[i] = None
        return list(seen)

    def require(self, ids: Iterable[str]) -> None:
        """Raise :class:`UnknownTestsError` (with the closest ids) if any id is unknown."""
        unknown = self.unknown(ids)
        if unknown:
            cause = volatile_cause(unknown, self.ids)
            raise UnknownTestsError(unknown, {u: self.suggest(u) for u in unknown}, cause)

    def suggest(self, test_id: str, n: int = 3) -> list[str]:
        """Existing ids closest to ``test_id`` (for error messages)."""
        close = difflib.get_close_matches(test_id, self.ids, n=n, cutoff=0.5)
        if close:
            return close
        tail = test_id.rsplit("::", 1)[-1]
        return [t for t in self.ids if t.rsplit("::", 1)[-1] == tail][:n]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rootdir": self.rootdir, "tests": [t.to_json() for t in self.tests]}
        if self.id_root:
            out["id_root"] = self.id_root
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Suite:
        return cls(
            [TestInfo.from_json(t) for t in data["tests"]],
            rootdir=data.get("rootdir", ""),
            id_root=data.get("id_root", ""),
        )
