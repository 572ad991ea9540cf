"""Statements for a setting a library keeps behind a getter and a setter
(:data:`orderdep.analysis.state.settings.SETTINGS`: ``numpy.set_printoptions``,
``multiprocessing.set_start_method``, ...).

A patch speaks the library's own calls: the current value is saved with the getter and
put back by the setter when the test ends (a ``request`` finalizer), and an OD test that
needs the passing value sets only what differs (``numpy.set_printoptions(precision=8)``).
"""

from __future__ import annotations

import ast

from orderdep.analysis.repair.candidates.value_literals import settings_changes
from orderdep.analysis.repair.locate.module_names import ModuleNames, module_reference
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.state.settings import setting_of

Stmts = tuple[list[str], list[str]]  # statements, fixtures they need


def setting_guards(root: RootInfo, names: ModuleNames) -> list[Stmts]:
    """Save the setting when the test starts and put it back when it ends (one line)."""
    setting = setting_of(root.name)
    if setting is None:
        return []
    ref, imports = module_reference(setting.module, names)
    return [(["import functools", *imports, setting.put_back_later(ref)], ["request"])]


def setting_restores(root: RootInfo, names: ModuleNames) -> list[Stmts]:
    """Give the OD test the passing value (what differs of it) for its run only."""
    setting = setting_of(root.name)
    if setting is None or not root.passing.present or root.passing.literal is None:
        return []
    ref, imports = module_reference(setting.module, names)
    if setting.keywords:
        changed = settings_changes(root)
        if not changed:
            return []
        if all(str(k).isidentifier() for k in changed):
            args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
            call = f"{ref}.{setting.setter}({args})"
        else:
            call = setting.set_call(ref, repr(changed))
    else:
        try:
            ast.literal_eval(root.passing.literal)
        except (ValueError, SyntaxError):
            return []
        call = setting.set_call(ref, root.passing.literal)
    later = setting.put_back_later(ref)
    return [(["import functools", *imports, later, call], ["request"])]
