"""Private pytest plugin loaded (``-p orderdep.engine.childplugin``) in every pytest process
orderdep starts. Idle unless ``ORDERDEP_CONTROL`` names a control file.

Modes (``mode`` in the control file):

- ``collect``: report the collected suite (ids, modules, classes) and collection errors;
- ``run``: run exactly the order in the control file, then finish the session normally;
- ``serve``: become a fork server (see :mod:`orderdep.engine.forkserver`); never runs a
  test itself.

The process must look to the tests like ``python -m pytest <the user's arguments>``: this
module is imported before any conftest or test module (``-p`` plugins are), and puts
``sys.argv`` back to the user's pytest arguments (``argv`` in the control file), hiding
the options orderdep added for itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.engine import threadwatch
from orderdep.engine.installed import installed_packages
from orderdep.engine.protocol import CONTROL_ENV, EventWriter
from orderdep.engine.pytest_compat import item_path, root_path
from orderdep.engine.redirect import imported_from, redirect
from orderdep.engine.seeds import SeedWatch

_control: Optional[dict[str, Any]] = None


def _load_control() -> Optional[dict[str, Any]]:
    global _control
    if _control is None:
        # Taken out of the environment so the tests (and their subprocesses) never see it.
        path = os.environ.pop(CONTROL_ENV, None)
        if not path:
            return None
        _control = json.loads(Path(path).read_text(encoding="utf-8"))
        argv = _control.get("argv")
        if argv is not None:
            ours = len(sys.argv) - 1
            orig = getattr(sys, "orig_argv", None)  # Python 3.10+: the interpreter's too
            if orig is not None and ours <= len(orig):
                sys.orig_argv = orig[: len(orig) - ours] + [str(a) for a in argv]
            sys.argv[1:] = [str(a) for a in argv]
    return _control


_load_control()
# The copy's code is what runs: editable installs of the project point at the copy.
if _control is not None and _control.get("origin") and _control.get("copy"):
    redirect(str(_control["origin"]), str(_control["copy"]))
# A fork server watches how the suite seeds the global random generators while it collects
# (before any conftest or test module is imported): see orderdep.engine.seeds.
_seed_watch: Optional[SeedWatch] = None
if _control is not None and _control.get("mode") == "serve":
    _seed_watch = SeedWatch()
    _seed_watch.install()
    threadwatch.install()  # where threads alive after collection were started
if _control is not None and _control.get("mode") == "prefork":
    threadwatch.install()  # where threads a plugin started as it loaded were started


def _imported_under(name: str, root: str) -> bool:
    """Whether module ``name`` is imported, from a file under ``root`` (or not at all)."""
    module = sys.modules.get(name)
    if module is None:
        return True  # not imported: nothing to say about it
    file = getattr(module, "__file__", None)
    return not isinstance(file, str) or os.path.realpath(file).startswith(
        os.path.join(os.path.realpath(root), "")
    )


def describe_items(items: list[pytest.Item], rootdir: Path) -> list[dict[str, Any]]:
    """Suite model rows for collected items (see :class:`orderdep.core.suite.TestInfo`)."""
    rows = []
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        cls_node = item.getparent(pytest.Class)
        try:
            file = os.path.relpath(str(item_path(item)), str(rootdir))
        except ValueError:
            file = str(item_path(item))
        rows.append(
            {
                "id": item.nodeid,
                "module": module,
                "cls": cls_node.nodeid if cls_node is not None else None,
                "file": file.replace(os.sep, "/"),
            }
        )
    return rows


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests() -> None:
    """A server that forks before collection (engine.prefork) serves here: plugins are
    loaded, no conftest or test module is imported yet. Each child returns with its
    order and goes on as a fresh pytest would."""
    global _control
    if _control is not None and _control.get("mode") == "prefork":
        from orderdep.engine.prefork import serve as serve_prefork

        _control = serve_prefork(_control)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    control = _load_control()
    if control is None:
        return
    config.pluginmanager.register(_ChildSession(control, config), "orderdep-child-session")


class _ChildSession:
    def __init__(self, control: dict[str, Any], config: pytest.Config) -> None:
        self.control = control
        self.config = config
        self.writer = EventWriter(Path(control["events"]))
        self.collect_errors: list[dict[str, str]] = []
        self.deselected = 0  # tests -k, -m or --deselect took out of the collection
        from orderdep.engine.childrun import Recorder

        self.recorder = Recorder(self.writer)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(
                {"nodeid": report.nodeid, "text": report.longreprtext[-4000:]}
            )

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.rng_states = _seed_watch.finish() if _seed_watch is not None else {}
        self.collected_modules = set(sys.modules)
        if self.control["mode"] in ("collect", "serve") or self.collect_errors:
            self.writer.emit(
                "suite",
                rootdir=str(root_path(self.config)),
                tests=describe_items(list(session.items), root_path(self.config)),
                errors=self.collect_errors,
                args=[str(a) for a in self.config.args],
                code=self._code_sources(),
                deselected=self.deselected,
            )

    def _code_sources(self) -> dict[str, list[str]]:
        """Where the project's code came from (see Suite.code)."""
        origin = self.control.get("origin")
        early = (
            [m for m in imported_from(str(origin)) if not m.startswith("orderdep")]
            if origin
            else []
        )
        root = str(root_path(self.config))
        installed = sorted(
            name
            for name in installed_packages(root)
            if not _imported_under(name, root)  # the tests import the site-packages copy
        )
        return {"from_origin": early, "installed": installed}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.recorder.on_report(report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Optional[bool]:
        mode = self.control["mode"]
        if mode == "collect" or self.collect_errors:
            return True
        from orderdep.engine.childrun import OrderRun, load_probe

        child = None
        if mode == "serve":
            from orderdep.engine.forkserver import ChildOrder, serve

            try:
                collected = getattr(self, "collected_modules", None)
                rng = getattr(self, "rng_states", None)
                # the server leaves inside serve(); a forked child raises ChildOrder
                serve(session, self.control, self.recorder, collected, rng)
            except ChildOrder as order:  # a forked child, its stack unwound to here
                child = order.with_traceback(None)
            if child is None:
                return True
            run = child.run
        else:
            probe = load_probe(self.control.get("probe"), str(root_path(self.config)))
            run = OrderRun(
                session,
                self.control["order"],
                self.recorder,
                probe,
                reference=self.control.get("reference"),
            )
        # pytest's own loop, inline: a test runs at the stack depth it has under pytest.
        hook = session.config.hook
        code = 0
        try:
            for i, item in enumerate(run.items):
                run.before(i)
                hook.pytest_runtest_protocol(item=item, nextitem=run.next_item(i))
                if run.after(i):
                    break
            run.finish()
        except BaseException:
            if child is None:
                raise
            code = 3
        if child is not None:
            child.exit(code)
        return True
