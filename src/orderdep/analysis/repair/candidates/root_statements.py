"""Statements that put a polluted root back before the OD test (a restore through
``monkeypatch``, undone after the test, or an in-place reset), as (statements, fixtures
they need) alternatives, smallest first; a polluter's own undoing of its write is
:mod:`.guard_statements`."""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.repair.candidates.container_edits import restore_key_statements
from orderdep.analysis.repair.candidates.logging_statements import logging_restores
from orderdep.analysis.repair.candidates.root_refs import (
    CWD,
    Stmts,
    file_expr,
    owner_expr,
    root_ref,
)
from orderdep.analysis.repair.candidates.setting_statements import setting_restores
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
from orderdep.analysis.repair.locate.module_roots import package_imports
from orderdep.analysis.repair.locate.probe_roots import sysmodule_name
from orderdep.analysis.repair.locate.root_info import RootInfo


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
        owner, imports = owner_expr(root, names, test_module)
        attr = root.attrs[-1]
        ref, ref_imports = root_ref(root, names, test_module)
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
        ref, imports = root_ref(root, names, test_module)
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
        expr, imports = file_expr(root.path)
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
