"""The repair debugger's probe, loaded by the engine inside the child that runs an order.

ODRepair's Debugger (003 §3.1, Figure 2) acts right before the OD test runs (position
``options["at"]``), in one of three modes:

``capture``
    Fingerprint every root (:mod:`orderdep.analysis.state.roots`, plus the entries of
    ``sys.modules`` and the wide fixtures' values of :mod:`.probe_roots`) and describe its
    value: a bounded structure (PolDet's XML serialisation, as JSON) the parent diffs into
    readable sentences, and, when the value can be written as a Python literal, that
    literal (the restore patches need it). A fixture value equal to what its fixture
    function returned is *fresh* (a fixture not set up yet is too), and a changed one is
    described next to its fresh content. ``ensure_modules`` are imported first, so
    roots another order loaded lazily exist here too (the paper's ``state_capture_eager``).
    ``attributes`` names roots captured besides (attributes of an object root,
    ``pkg.mod.obj.attr``, see :mod:`.attribute_roots`).
    ``late`` names roots captured again first thing in the OD test's call phase, after
    its set-ups (``late_roots`` in the result): a class attribute ``setup_class`` makes
    is absent before the test that runs alone and present after its polluter, and the
    two differ in what the test then reads (see :mod:`.set_up_roots`).
``restore``
    At position 0 capture the roots named in ``roots`` (:func:`orderdep.analysis.state.get`);
    at ``at`` put each back (:func:`orderdep.analysis.state.restore`: in place, so
    references held elsewhere see the restored content, as 003 §3.1.1 reuses live
    objects). A root whose module was not imported at position 0 gets the value a fresh
    execution of its module creates; a ``sys.modules`` entry absent then is removed; a
    fixture value gets its fresh content back. An attribute absent at position 0 that a
    set-up makes (``setup_class``, ``setUpClass``, ``setup_module``) is captured as it
    is right after the set-up that made it, first thing in the call phase of an earlier
    test, and put back first thing in the call phase of the OD test (after the set-ups
    it shares with them): deleting it would break the test in another way.
``exec``
    Execute ``code`` (a generated cleaner, or a cleaner's statements) in a copy of the
    namespace of module ``namespace`` (or a fresh one). With ``phase: "call"`` it runs
    where a patch's statements would, after the test's fixtures were set up and right
    before its function is called, with the values of ``fixtures`` bound by name.

The probe never raises into the run; problems land in its result.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from typing import Any, Optional

from orderdep.analysis.repair.locate.module_roots import (
    mark_reimported,
    package_of,
    restore_package,
)
from orderdep.analysis.repair.locate.probe_capture import (
    capture_attribute,
    capture_fixture,
    capture_root,
    is_python_root,
    loaded_module,
    module_of_test,
    restore_from_fresh_module,
    root_meta,
    roots_config,
    split_python_root,
)
from orderdep.analysis.repair.locate.probe_roots import (
    FIXTURE_PREFIX,
    FixtureValues,
    describe_module,
    library_dirs,
    sysmodule_name,
    sysmodule_root,
    watched_modules,
)
from orderdep.analysis.repair.locate.probe_values import (
    IGNORED_ROOTS,
)
from orderdep.analysis.repair.locate.rebound import (
    idents,
    is_rebound,
    mark_rebound,
    process_captures,
    process_idents,
)
from orderdep.analysis.state.fingerprint import INTERNAL_MODULE_PREFIXES as INTERNAL
from orderdep.analysis.state.namespaces import ProjectModules
from orderdep.analysis.state.roots import StateTracker
from orderdep.analysis.state.values import RootValue, get, restore
from orderdep.analysis.state.windows import find_session

# -- the probe --------------------------------------------------------------------------------


def _value(name: str) -> Any:
    """The object root ``name`` holds now (None when it cannot be read)."""
    try:
        return get(name, None).value
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # user code may raise any
        return None


class DebugProbe:
    """Captures, restores or executes at one position of one order."""

    def __init__(self, options: dict[str, Any], rootdir: str) -> None:
        self.mode = str(options.get("mode", "capture"))
        self.at = int(options.get("at", 0))
        self.rootdir = rootdir
        self.options = options
        self.config = roots_config(rootdir)
        self.data: dict[str, Any] = {"mode": self.mode, "at": self.at, "salt": hash("orderdep")}
        self._captured: dict[str, RootValue] = {}
        self._modules_at_start: dict[str, Any] = {}
        self._failed: dict[str, str] = {}
        self._library = library_dirs()
        self.fixtures: Optional[FixtureValues] = None
        self._armed: Optional[str] = None  # the test whose call runs the code (phase "call")
        self._index = 0  # position of the test running
        self._late: dict[str, Optional[RootValue]] = {}  # absent at 0; captured once set up
        self._idents_at_start: dict[str, int] = {}  # the objects globals held at 0
        self._tracker: Optional[StateTracker] = None  # the capture's, for ``late`` roots

    def before_test(self, index: int, test_id: str) -> None:
        self._index = index
        if index == 0:
            self._attach(find_session())
            self._modules_at_start = dict(sys.modules)
            if self.mode == "capture":
                self._idents_at_start = idents(watched_modules(self._library))
                self._idents_at_start.update(process_idents())
        if self.mode == "restore" and index == 0:
            self._snapshot()
        if index != self.at:
            return
        self.data["test"] = test_id
        self.data["test_module"] = module_of_test(test_id, self.rootdir)
        if self.mode == "capture":
            self._capture()
        elif self.mode == "restore":
            self._restore()
        elif self.mode == "exec":
            if self.options.get("phase") == "call" and self._armed is None:
                self._armed = test_id  # the plugin runs it (see _attach)
                if "exec_error" not in self.data:
                    self.data["exec_error"] = "the test's call phase never started"
            else:
                self._exec()

    def _attach(self, session: Any) -> None:
        """Fixture values and the call-phase hook, through the session running the order."""
        if session is None:
            return
        try:
            manager = session.config.pluginmanager
            project = ProjectModules(self.config.rootdir, ("orderdep", *INTERNAL))
            values = FixtureValues.of_session(session, project.is_project_path)
            if values.register(manager):
                self.fixtures = values
            call_phase = (
                self.mode == "restore"
                or self.options.get("phase") == "call"
                or bool(self.mode == "capture" and self.options.get("late"))
            )
            if call_phase:
                manager.register(_call_phase_plugin(self), "orderdep-repair-call-phase")
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # user code may raise any
            self.data["attach_error"] = f"{type(exc).__name__}: {exc}"[:300]

    def after_test(self, index: int, test_id: str) -> None:
        pass

    def result(self) -> dict[str, Any]:
        return self.data

    def _capture(self) -> None:
        missing = []
        for name in self.options.get("ensure_modules") or []:
            try:
                importlib.import_module(str(name))
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # user code may raise any
                missing.append(str(name))
        self.data["not_importable"] = missing
        tracker = self._tracker = StateTracker(self.config)
        if self.fixtures is not None:
            tracker.fixtures = self.fixtures.roots
        fingerprints = tracker.snapshot()
        captured: dict[str, Any] = {}
        for name, fp in fingerprints.items():
            if name in IGNORED_ROOTS:
                continue
            try:
                if name.startswith(FIXTURE_PREFIX) and self.fixtures is not None:
                    captured[name] = capture_fixture(name, self.fixtures, fp, self.rootdir)
                else:
                    meta = root_meta(name, tracker, self.rootdir)
                    captured[name] = capture_root(name, meta, self.config)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # user code may raise any
                meta = root_meta(name, tracker, self.rootdir)
                captured[name] = {**meta, "present": True, "error": repr(exc)[:300]}
            captured[name]["fp"] = fp
            if is_rebound(captured[name], name, self._idents_at_start):
                mark_rebound(captured[name], _value(name))
        captured.update(process_captures(self._idents_at_start))
        for module_name, module in watched_modules(self._library).items():
            desc = describe_module(module, self.rootdir)
            captured[sysmodule_root(module_name)] = {
                "kind": "sysmodule",
                "present": True,
                "type": "module",
                "desc": mark_reimported(desc, module, self._modules_at_start, module_name),
                "literal": None,
            }
        for name in [str(n) for n in self.options.get("attributes") or []]:
            captured[name] = capture_attribute(
                name, root_meta(name, tracker, self.rootdir), self.config
            )
        self.data["roots"] = captured

    def _capture_late(self) -> None:
        """The ``late`` roots as the OD test's set-ups left them."""
        tracker = self._tracker  # the modules known before the test: its own among them
        if tracker is None:
            return
        late: dict[str, Any] = {}
        for name in [str(n) for n in self.options.get("late") or []]:
            meta = root_meta(name, tracker, self.rootdir)
            late[name] = capture_attribute(name, meta, self.config)
        self.data["late_roots"] = late

    def _snapshot(self) -> None:
        for name in [str(n) for n in self.options.get("roots") or []]:
            if name.startswith((FIXTURE_PREFIX, "sys.modules[")):
                continue  # fixtures are not set up yet; sys.modules is kept whole above
            if is_python_root(name) and split_python_root(name, frozenset(sys.modules)) is None:
                continue  # imported later: restored from a fresh copy of its module
            try:
                self._captured[name] = get(name, self.config)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # user code may raise any
                self._failed[name] = f"capture: {type(exc).__name__}: {exc}"
                continue
            if is_python_root(name) and not self._captured[name].present:
                self._late[name] = None  # a set-up may make it: see _late_snapshot

    def _late_snapshot(self) -> None:
        """In an earlier test's call phase, capture the roots absent at position 0 that a
        set-up has made since (as they are right after it)."""
        for name, value in self._late.items():
            if value is not None:
                continue
            try:
                now = get(name, self.config)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # user code may raise any; absent it stays
                continue
            if now.present:
                self._late[name] = now

    def _late_restore(self) -> None:
        """In the OD test's call phase, put back the roots :meth:`_late_snapshot` took."""
        restored = self.data.setdefault("restored", [])
        failed = self.data.setdefault("failed", {})
        for name, value in self._late.items():
            if value is None:
                continue
            try:
                restore(name, value, self.config)
                restored.append(name)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # user code may raise any
                failed[name] = f"{type(exc).__name__}: {exc}"

    def _restore(self) -> None:
        restored: list[str] = []
        failed = dict(self._failed)
        for name in [str(n) for n in self.options.get("roots") or []]:
            if name in failed:
                continue
            if self._late.get(name) is not None:
                continue  # put back in the call phase (_late_restore)
            try:
                module_name = sysmodule_name(name)
                if module_name is not None:
                    self._restore_sysmodule(module_name)
                elif name.startswith(FIXTURE_PREFIX):
                    if self.fixtures is None:
                        raise LookupError("no pytest session found: fixture values unknown")
                    self.fixtures.restore_fresh(name)
                elif name in self._captured:
                    restore(name, self._captured[name], self.config)
                else:
                    restore_from_fresh_module(name)
                restored.append(name)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # user code may raise any
                failed[name] = f"{type(exc).__name__}: {exc}"
        self.data["restored"] = restored
        self.data["failed"] = failed

    def _restore_sysmodule(self, name: str) -> None:
        package = package_of(sysmodule_root(name))
        if package is not None:
            restore_package(package, self._modules_at_start)
        elif name in self._modules_at_start:
            sys.modules[name] = self._modules_at_start[name]
        else:
            sys.modules.pop(name, None)

    def _exec(self, namespace_extra: Optional[dict[str, Any]] = None) -> None:
        namespace: dict[str, Any] = {"__name__": "orderdep_repair_exec"}
        module_name = self.options.get("namespace")
        module = loaded_module(str(module_name)) if module_name else None
        if module is not None:
            namespace = dict(vars(module))
        namespace.update(namespace_extra or {})
        try:
            exec(compile(str(self.options.get("code", "")), "<candidate>", "exec"), namespace)
            self.data["exec_error"] = ""
        except BaseException:
            self.data["exec_error"] = traceback.format_exc(limit=3)[-1500:]

    def call_phase(self, item: Any) -> None:
        """Run the code right before the armed test's function (its fixtures are set up);
        in restore mode, capture or put back the roots a set-up made (see :meth:`_late_snapshot`)."""
        if self.mode == "restore":
            if self._index < self.at:
                self._late_snapshot()
            elif self._index == self.at:
                self._late_restore()
            return
        if self.mode == "capture":
            if self._index == self.at:
                self._capture_late()
            return
        if self._armed is None or getattr(item, "nodeid", None) != self._armed:
            return
        self._armed = ""  # once
        bound: dict[str, Any] = {}
        try:
            funcargs = getattr(item, "funcargs", {}) or {}
            for name in [str(n) for n in self.options.get("fixtures") or []]:
                if name in funcargs:
                    bound[name] = funcargs[name]
                else:  # a fixture the patch would add to the test's parameters
                    bound[name] = item._request.getfixturevalue(name)
        except BaseException:
            self.data["exec_error"] = traceback.format_exc(limit=3)[-1500:]
            return
        self._exec(bound)


def _call_phase_plugin(probe: DebugProbe) -> object:
    """A pytest plugin running the probe's code first thing in a test's call phase."""
    import pytest  # only ever called inside a pytest process

    class CallPhase:
        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_call(self, item: Any) -> None:
            probe.call_phase(item)

    return CallPhase()


def make_probe(options: dict[str, Any], rootdir: str) -> DebugProbe:
    """Entry point the engine calls in the child (see :mod:`orderdep.engine.probe`)."""
    return DebugProbe(options, rootdir)
