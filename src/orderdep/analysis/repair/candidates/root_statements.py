"""Statements that put a polluted root back (restore) or make a polluter undo its write
(guard), as (statements, fixtures they need) alternatives, smallest first.

* a restore of the polluted root through ``monkeypatch`` (undone after the test), or an
  in-place reset, inserted into the OD test (:func:`restore_statements`);
* a guard inserted into each polluter that saves the root and puts it back when the
  polluter ends (:func:`guard_statements`).
"""

from __future__ import annotations

from typing import Any, Optional

from orderdep.analysis.repair.candidates.container_edits import (
    attribute_copy_guards,
    changed_in_place,
    guard_key_statements,
    restore_key_statements,
)
from orderdep.analysis.repair.candidates.default_args import defaults_guard
from orderdep.analysis.repair.candidates.logging_statements import logging_guards, logging_restores
from orderdep.analysis.repair.candidates.setting_statements import setting_guards, setting_restores
from orderdep.analysis.repair.candidates.value_literals import (
    argv_arguments,
    attribute_literals,
    attribute_restores,
    changed_attributes,
    desc_literal,
    refill_statements,
    settings_changes,
)
from orderdep.analysis.repair.locate.module_names import (
    ModuleNames,
    attribute_reference,
    module_reference,
)
from orderdep.analysis.repair.locate.module_roots import (
    package_guard,
    package_imports,
    package_of,
)
from orderdep.analysis.repair.locate.probe_roots import sysmodule_name
from orderdep.analysis.repair.locate.root_info import RootInfo

Stmts = tuple[list[str], list[str]]  # (statements, fixtures they need)


def _owner(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> tuple[str, list[str]]:
    """Expression for the object holding the root's last attribute, and imports."""
    assert root.module is not None
    if root.module == test_module:
        if len(root.attrs) == 1:
            return "", []  # the test's own global: reached through globals()
        return ".".join(root.attrs[:-1]), []
    return attribute_reference(root.module, root.attrs[:-1], names, root.shadowed)


CWD = "$CWD/"  # file roots under the working directory (state/files.py)


def _ref(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> tuple[str, list[str]]:
    """Expression for the root's value itself (for in-place changes), and imports."""
    assert root.module is not None
    if root.module == test_module:
        return ".".join(root.attrs), []
    return attribute_reference(root.module, root.attrs, names, root.shadowed)


def _file_expr(path: str) -> tuple[str, list[str]]:
    if path.startswith(CWD):  # under the working directory a fixture moved the tests to
        return f"pathlib.Path({path[len(CWD) :]!r}).absolute()", ["import pathlib"]
    if path.startswith("~/"):
        return f"pathlib.Path.home().joinpath({path[2:]!r})", ["import pathlib"]
    if path.startswith("$TMP/"):
        return f"pathlib.Path(tempfile.gettempdir(), {path[5:]!r})", [
            "import pathlib",
            "import tempfile",
        ]
    return f"request.config.rootpath.joinpath({path!r})", []


def _fixture_restores(root: RootInfo) -> list[Stmts]:
    """A fixture value back to its fresh content, in place, at the start of the test."""
    assert root.fixture is not None
    ref, p = root.fixture, root.passing
    out: list[Stmts] = []
    literal = p.literal if p.literal is not None else desc_literal(p.desc)
    if literal is not None and refill_statements(ref, p.type, literal):
        out.append((refill_statements(ref, p.type, literal), [ref]))
    in_place = attribute_restores(root, ref)
    if in_place:
        out.append((in_place, [ref]))
    return out


def decimal_changes(root: RootInfo) -> dict[str, object]:
    """The decimal settings that differ between the failing and the passing state, with
    their passing values."""
    return settings_changes(root)


def restore_statements(
    root: RootInfo, names: ModuleNames, test_module: Optional[str], *, whole: bool = False
) -> list[Stmts]:
    """Ways to put ``root`` back to its passing value at the start of the OD test.

    Alternatives, smallest first; each is verified before it is offered. ``whole``: an
    object changed in place gets each differing attribute's whole value first, not only
    the keys that differ (a brittle needs exactly the state its setter leaves, whatever
    other tests added).
    """
    out: list[Stmts] = []
    p = root.passing
    if root.kind in ("global", "classattr") and root.module:
        owner, imports = _owner(root, names, test_module)
        attr = root.attrs[-1]
        ref, ref_imports = _ref(root, names, test_module)
        # absent where the test fails (a setter adds it): monkeypatch must not insist
        new = "" if root.failing.present else ", raising=False"
        if p.present and p.literal is not None:
            # in place: code holding a reference to the object sees the reset too
            if p.type == "dict" or p.type == "set":
                fill = [] if p.literal in ("{}", "set()") else [f"{ref}.update({p.literal})"]
                out.append(([*ref_imports, f"{ref}.clear()", *fill], []))
            elif p.type == "list":
                out.append(([*ref_imports, f"{ref}[:] = {p.literal}"], []))
            if owner:
                out.append(
                    (
                        [*imports, f"monkeypatch.setattr({owner}, {attr!r}, {p.literal}{new})"],
                        ["monkeypatch"],
                    )
                )
            else:
                out.append(
                    ([f"monkeypatch.setitem(globals(), {attr!r}, {p.literal})"], ["monkeypatch"])
                )
        elif not p.present and root.failing.present and owner:
            out.append(
                (
                    [*imports, f"monkeypatch.delattr({owner}, {attr!r}, raising=False)"],
                    ["monkeypatch"],
                )
            )
        elif p.present and p.importable:
            # a function or class: named again through its module (``json.dumps``)
            value_module, _, qualname = p.importable.partition(":")
            value, value_imports = attribute_reference(
                value_module, qualname.split("."), names, root.shadowed
            )
            value_imports = [i for i in value_imports if i not in imports]
            if owner:
                stmt = f"monkeypatch.setattr({owner}, {attr!r}, {value}{new})"
            else:
                stmt = f"monkeypatch.setitem(globals(), {attr!r}, {value})"
            out.append(([*imports, *value_imports, stmt], ["monkeypatch"]))
        elif p.present:
            # an object changed in place: put back the attributes that differ
            fields = changed_attributes(root)
            if fields:
                sets = [f"monkeypatch.setattr({ref}, {a!r}, {v})" for a, v in fields.items()]
                out.append(([*ref_imports, *sets], ["monkeypatch"]))
        # a container changed in place: only the keys that differ, undone after the test
        keys = restore_key_statements(root, ref, desc_literal) if root.failing.present else None
        if p.present and keys and ([*ref_imports, *keys], ["monkeypatch"]) not in out:
            out.append(([*ref_imports, *keys], ["monkeypatch"]))
        values = attribute_literals(root) if root.failing.present else {}
        sets = [f"monkeypatch.setattr({ref}, {a!r}, {v})" for a, v in values.items()]
        if whole and sets and ([*ref_imports, *sets], ["monkeypatch"]) not in out:
            out.insert(0, ([*ref_imports, *sets], ["monkeypatch"]))
    elif root.kind == "cache" and root.module:
        ref, imports = _ref(root, names, test_module)
        out.append(([*imports, f"{ref}.cache_clear()"], []))
    elif root.kind == "fixture" and root.fixture:
        out += _fixture_restores(root)
        keys = restore_key_statements(root, root.fixture, desc_literal) if not out else None
        if p.present and root.failing.present and keys:
            out.append((keys, ["monkeypatch", root.fixture]))
    elif root.kind == "sysmodule" and root.missing_modules:
        out += package_imports(root)
    elif root.kind == "sysmodule" and not p.present and root.failing.present:
        module = sysmodule_name(root.name)
        if module is not None:
            sys_ref, imports = module_reference("sys", names)
            stmt = f"monkeypatch.delitem({sys_ref}.modules, {module!r}, raising=False)"
            out.append(([*imports, stmt], ["monkeypatch"]))
    elif root.kind == "env" and root.var:
        if p.present and p.literal is not None:
            out.append(([f"monkeypatch.setenv({root.var!r}, {p.literal})"], ["monkeypatch"]))
        elif not p.present:
            out.append(([f"monkeypatch.delenv({root.var!r}, raising=False)"], ["monkeypatch"]))
    elif root.kind == "logging":
        out += logging_restores(root)
    elif root.kind == "setting":
        out += setting_restores(root, names)
    elif root.kind == "decimal":
        # the settings the test needs, for its run only
        sets = [f"monkeypatch.setattr(decimal.getcontext(), {f!r}, {v!r})"
                for f, v in decimal_changes(root).items()]  # fmt: skip
        if sets:
            out.append((["import decimal", *sets], ["monkeypatch"]))
    elif root.kind == "sysargv" and whole:
        # a brittle: the arguments its setter left (the program name stays the run's)
        args = argv_arguments(root)
        if args is not None:
            argv = ", ".join(["sys.argv[0]", *args])
            stmt = f"monkeypatch.setattr(sys, 'argv', [{argv}])"
            out.append((["import sys", stmt], ["monkeypatch"]))
    elif root.kind == "cwd" and p.literal is not None:
        where = (
            "request.config.rootpath"
            if p.literal == "'.'"
            else f"request.config.rootpath.joinpath({p.literal})"
        )
        out.append(([f"monkeypatch.chdir({where})"], ["monkeypatch", "request"]))
    elif root.kind == "file" and root.path:
        expr, imports = _file_expr(root.path)
        fixtures = [] if root.path.startswith(("$TMP/", "~/", CWD)) else ["request"]
        if not p.present and root.name.endswith("/"):
            out.append(
                (
                    [*imports, "import shutil", f"shutil.rmtree({expr}, ignore_errors=True)"],
                    fixtures,
                )
            )
        elif not p.present:
            out.append(([*imports, f"{expr}.unlink(missing_ok=True)"], fixtures))
        elif root.name.endswith("/") and not root.failing.present:
            # a directory the test writes into, made by other tests (or removed by one)
            out.append(([*imports, f"{expr}.mkdir(parents=True, exist_ok=True)"], fixtures))
        elif p.literal is not None:
            out.append(([*imports, f"{expr}.write_text({p.literal})"], fixtures))
    return out


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
    obj, obj_imports = _ref(root, names, test_module)
    keys = guard_key_statements(root, obj)
    return ([*obj_imports, *keys[0]], keys[1]) if keys else None


def guard_statements(root: RootInfo, names: ModuleNames, test_module: Optional[str]) -> list[Stmts]:
    """Ways for a polluter to undo its write to ``root`` when it ends (teardown)."""
    out: list[Stmts] = []
    p = root.passing
    if root.kind in ("global", "classattr") and root.module:
        owner, imports = _owner(root, names, test_module)
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
        obj, obj_imports = _ref(root, names, test_module)
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
        ref, imports = _ref(root, names, test_module)
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
        expr, imports = _file_expr(root.path)
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
