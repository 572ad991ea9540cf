"""Statements a polluter runs so that its write to a root is undone when it ends (a
guard), as (statements, fixtures they need) alternatives, smallest first."""

from __future__ import annotations

from typing import Any, Optional

from orderdep.analysis.repair.candidates.container_edits import (
    attribute_copy_guards,
    changed_in_place,
    guard_key_statements,
)
from orderdep.analysis.repair.candidates.default_args import defaults_guard
from orderdep.analysis.repair.candidates.logging_statements import logging_guards
from orderdep.analysis.repair.candidates.root_refs import (
    CWD,
    Stmts,
    file_expr,
    owner_expr,
    root_ref,
)
from orderdep.analysis.repair.candidates.root_statements import decimal_changes
from orderdep.analysis.repair.candidates.setting_statements import setting_guards
from orderdep.analysis.repair.candidates.value_literals import changed_attributes
from orderdep.analysis.repair.locate.module_names import ModuleNames, module_reference
from orderdep.analysis.repair.locate.module_roots import package_guard, package_of
from orderdep.analysis.repair.locate.probe_roots import sysmodule_name
from orderdep.analysis.repair.locate.root_info import RootInfo


def holds_modules(desc: Any) -> bool:
    """Whether a value description (see :func:`~.probe_values.describe`) holds a module
    anywhere: ``copy.deepcopy`` of it raises ``TypeError``."""
    if not isinstance(desc, list) or len(desc) != 3:
        return False
    tag, tname, payload = desc
    if tag == "ref":
        return bool(tname == "module")
    if tag in ("dict", "obj"):
        return any(holds_modules(v) for _, v in payload)
    if tag == "seq":
        return any(holds_modules(v) for v in payload)
    return False


def _buffer(root: RootInfo) -> bool:
    """Whether the root holds an object whose content is a buffer (a numpy array), which
    a test writes in place (``grid[1, 1] = 0``): its guard works on a deep copy."""
    desc = root.passing.desc
    return isinstance(desc, list) and len(desc) == 3 and desc[0] == "buf"


def key_guard(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> Optional[Stmts]:
    """The guard of :func:`guard_statements` putting back only the keys (or attributes)
    of a container the polluter changes, not the whole container; None when the
    difference is not a matter of keys."""
    if root.kind not in ("global", "classattr") or not root.module or not root.failing.present:
        return None
    obj, obj_imports = root_ref(root, names, test_module)
    keys = guard_key_statements(root, obj)
    return ([*obj_imports, *keys[0]], keys[1]) if keys else None


def guard_statements(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> list[Stmts]:
    """Ways for a polluter to undo its write to ``root`` when it ends (teardown)."""
    out: list[Stmts] = []
    p = root.passing
    if root.kind in ("global", "classattr") and root.module:
        owner, imports = owner_expr(root, names, test_module)
        attr = root.attrs[-1]
        ref = f"{owner}.{attr}" if owner else attr
        if not p.present and owner:
            # absent before the polluter: set then delete; monkeypatch undoes both,
            # leaving it absent again (a plain setattr of its value would raise)
            sets = [
                f"monkeypatch.setattr({owner}, {attr!r}, None, raising=False)",
                f"monkeypatch.delattr({owner}, {attr!r})",
            ]
            out.append(([*imports, *sets], ["monkeypatch"]))
            return out
        restored = defaults_guard(root, ref)
        if restored is not None:  # a mutable default changed in place: the defaults back
            out.append(([*imports, *restored], ["monkeypatch"]))
        shallow = p.type in ("dict", "set", "list") and holds_modules(p.desc)
        if shallow:  # modules cannot be deep-copied: the container is what changes
            value = f"{ref}.copy()"
        elif root.rebound:  # the first object is untouched: keep it, monkeypatch rebinds it
            value = ref
        elif p.type in ("dict", "set", "list") or changed_in_place(root) or _buffer(root):
            # work on a copy; monkeypatch puts the untouched original back afterwards
            value = f"copy.deepcopy({ref})"
            imports = [*imports, "import copy"]
        else:
            value = ref
        if owner:
            out.append(
                ([*imports, f"monkeypatch.setattr({owner}, {attr!r}, {value})"], ["monkeypatch"])
            )
        else:
            out.append(
                ([*imports, f"monkeypatch.setitem(globals(), {attr!r}, {value})"], ["monkeypatch"])
            )
        obj, obj_imports = root_ref(root, names, test_module)
        if p.type in ("dict", "set", "list"):
            # in place when the polluter writes through another name of the same object
            refill = "extend" if p.type == "list" else "update"
            saving = (
                [f"saved = {obj}.copy()"]
                if shallow
                else ["import copy", f"saved = copy.deepcopy({obj})"]
            )
            out.append(
                (
                    [
                        *obj_imports,
                        *saving,
                        f"request.addfinalizer(lambda saved=saved: ({obj}.clear(), {obj}.{refill}(saved)))",
                    ],
                    ["request"],
                )
            )
        fields = changed_attributes(root)
        if fields:  # an object changed in place: monkeypatch puts its attributes back
            sets = [f"monkeypatch.setattr({obj}, {a!r}, {obj}.{a})" for a in fields]
            out.insert(0, ([*obj_imports, *sets], ["monkeypatch"]))
        copies = attribute_copy_guards(root, obj)
        if copies:  # its containers changed in place: the test changes copies of them
            out.append(([*obj_imports, *copies], ["monkeypatch"]))
        keys = key_guard(root, names, test_module)
        if keys and not fields:  # only the keys the polluter adds, removes or changes
            out.append(keys)
    elif root.kind == "cache" and root.module:
        ref, imports = root_ref(root, names, test_module)
        out.append(([*imports, f"request.addfinalizer({ref}.cache_clear)"], ["request"]))
    elif root.kind == "fixture" and root.fixture:
        # the polluter puts the fixture's value back when it ends (a deep copy of it now)
        ref = root.fixture
        if p.type in ("dict", "set", "list"):
            refill = "extend" if p.type == "list" else "update"
            finish = f"({ref}.clear(), {ref}.{refill}(saved))"
            saved = f"saved = copy.deepcopy({ref})"
        else:
            finish = f"(vars({ref}).clear(), vars({ref}).update(saved))"
            saved = f"saved = copy.deepcopy(vars({ref}))"
        # the value saved now, even when another guard in the test saves under the same name
        finalizer = f"request.addfinalizer(lambda saved=saved: {finish})"
        out.append((["import copy", saved, finalizer], ["request", ref]))
    elif root.kind == "sysmodule" and package_of(root.name):
        out += package_guard(str(package_of(root.name)), names)
    elif root.kind == "sysmodule" and not p.present:
        module = sysmodule_name(root.name)
        if module is not None:
            sys_ref, imports = module_reference("sys", names)
            stmt = f"request.addfinalizer(lambda: {sys_ref}.modules.pop({module!r}, None))"
            out.append(([*imports, stmt], ["request"]))
    elif root.kind == "env" and root.var:
        if p.present:
            # its value now, not the one seen in orderdep's sandbox (HOME, TMPDIR, ...)
            stmt = f"monkeypatch.setenv({root.var!r}, os.environ[{root.var!r}])"
            out.append((["import os", stmt], ["monkeypatch"]))
        else:
            # unset when the test ends, one line (``self.addCleanup`` in a TestCase); else
            # set then delete: monkeypatch undoes both, leaving the variable unset
            pop = f"request.addfinalizer(lambda: os.environ.pop({root.var!r}, None))"
            out.append((["import os", pop], ["request"]))
            out.append(
                (
                    [f"monkeypatch.setenv({root.var!r}, '')", f"monkeypatch.delenv({root.var!r})"],
                    ["monkeypatch"],
                )
            )
    elif root.kind == "cwd":
        out.append((["import os", "monkeypatch.chdir(os.getcwd())"], ["monkeypatch"]))
    elif root.kind == "syspath":
        out.append(
            (["import sys", "monkeypatch.setattr(sys, 'path', list(sys.path))"], ["monkeypatch"])
        )
    elif root.kind == "logging":
        out += logging_guards(root)
    elif root.kind == "setting":
        out += setting_guards(root, names)
    elif root.kind == "decimal":
        # the settings it changes, put back when it ends
        sets = [f"monkeypatch.setattr(decimal.getcontext(), {f!r}, decimal.getcontext().{f})"
                for f in decimal_changes(root)]  # fmt: skip
        if sets:
            out.append((["import decimal", *sets], ["monkeypatch"]))
    elif root.kind == "sysargv":
        # the command line the test ran with, put back when it ends (argparse reads it)
        out.append(
            (["import sys", "monkeypatch.setattr(sys, 'argv', list(sys.argv))"], ["monkeypatch"])
        )
    elif root.kind == "file" and root.path:
        expr, imports = file_expr(root.path)
        fixtures = ["request"]
        # the finalizer's path: bound when it is registered for a file under the working
        # directory (which may have moved again by the time it runs)
        cwd = root.path.startswith(CWD)
        bound, at = ("path", f"path={expr}, ") if cwd else (expr, "")
        head = f"lambda path={expr}" if cwd else "lambda"
        if not p.present and root.name.endswith("/"):
            out.append(
                (
                    [
                        *imports,
                        "import shutil",
                        # only what the test creates: a directory there already (made by a
                        # session fixture, say) stays
                        f"if not {expr}.exists():\n"
                        f"    request.addfinalizer({head}: shutil.rmtree({bound}, ignore_errors=True))",
                    ],
                    fixtures,
                )
            )
        elif not p.present:
            out.append(
                (
                    [
                        *imports,
                        f"if not {expr}.exists():\n"
                        f"    request.addfinalizer({head}: {bound}.unlink(missing_ok=True))",
                    ],
                    fixtures,
                )
            )
        else:
            out.append(
                (
                    [
                        *imports,
                        f"saved_bytes = {expr}.read_bytes()",
                        f"request.addfinalizer(lambda {at}saved_bytes=saved_bytes: {bound}.write_bytes(saved_bytes))",
                    ],
                    fixtures,
                )
            )
    return out
