"""``fixture:`` roots: cached values of session-, package-, module- and class-scoped fixtures.

pytest keeps a fixture value of a wider scope than the function in its ``FixtureDef``
(``cached_result``) for every test that uses it until the scope ends: a test that adds to a
session-scoped catalog leaves the entry for every later user, exactly like a module
global (paper 001 §III-A: state reachable from static fields). Such values are not in any
module's namespace, so they are roots of their own, named after the fixture definition::

    fixture:<scope>:<baseid>::<name>     e.g. fixture:session:tests::catalog

for the definitions of the project's own fixtures (their function lives in a project
file) that the session's test items use, or that get set up while the probe runs.

**Fresh values are no write.** The fingerprint of a root is that of its cached value,
except that a value equal to what the fixture function returned (recorded right after
setup, :meth:`FixtureRoots.set_up`) and a value that is not cached at all (never set up,
or torn down) both fingerprint as :data:`FRESH`. So setting a fixture up is no write (any
later user would have set up the same), changing its value is, and tearing down a changed
value is a write by the test at whose teardown it happened (the next user starts fresh:
that test "cleaned" it). Fixture functions are assumed to build the same value each time;
values they take from elsewhere are aliases of those roots and tracked there.

**Reads.** A test reads the roots of every fixture it uses (``item.fixturenames``, the
closure over fixtures requesting fixtures, with the definition that applies to it), plus
any root whose objects reach its code (the read tracer's aliases).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, Optional

from orderdep.analysis.state.fingerprint import Fingerprinter, identity

PREFIX = "fixture:"
FRESH = hash("fixture: fresh or not set up")
WIDE_SCOPES = frozenset({"session", "package", "module", "class"})
CURRENT: list[Optional[FixtureRoots]] = [None]  # the roots of this process's session


def root_name(fixturedef: Any) -> str:
    """``fixture:<scope>:<baseid>::<name>`` of a pytest ``FixtureDef``."""
    return f"{PREFIX}{fixturedef.scope}:{fixturedef.baseid}::{fixturedef.argname}"


def _cached(fixturedef: Any) -> Optional[tuple[Any, ...]]:
    """The ``cached_result`` of a definition when it holds a value (not an error)."""
    cached = getattr(fixturedef, "cached_result", None)
    if cached is None or len(cached) < 3 or cached[2] is not None:
        return None
    return tuple(cached)


class FixtureRoots:
    """The wide-scoped fixture definitions of one pytest session, as roots.

    ``is_project_path(filename)`` says whether a fixture function's file is the project's
    (pytest's and other plugins' fixtures are not watched).
    """

    def __init__(self, defs: Iterable[Any], is_project_path: Callable[[str], bool]) -> None:
        self.is_project_path = is_project_path
        self.defs: dict[str, Any] = {}  # root name -> FixtureDef
        self._names: dict[int, Optional[str]] = {}  # identity(FixtureDef) -> root name
        self._by_arg: dict[str, list[str]] = {}  # fixture name -> its root names
        self._fresh: dict[str, tuple[int, int]] = {}  # root -> (id(cached_result), fp)
        self._last: dict[str, tuple[int, int]] = {}  # root -> (id(cached_result), fp)
        for fixturedef in defs:
            self.learn(fixturedef)

    @classmethod
    def of_session(cls, session: Any, is_project_path: Callable[[str], bool]) -> FixtureRoots:
        """The fixture roots of a pytest ``Session``: the definitions its test items use
        (``item._fixtureinfo``, stable across pytest 7 to 9, unlike the fixture manager's
        own tables); definitions first set up later (``getfixturevalue``) are learnt then."""
        found: dict[int, Any] = {}
        for item in list(getattr(session, "items", None) or ()):
            info = getattr(item, "_fixtureinfo", None)
            for defs in (getattr(info, "name2fixturedefs", None) or {}).values():
                for fixturedef in defs:
                    found.setdefault(identity(fixturedef), fixturedef)
        return cls(found.values(), is_project_path)

    def learn(self, fixturedef: Any) -> Optional[str]:
        """The root name of a definition (None when it is not watched), remembered."""
        key = identity(fixturedef)
        if key in self._names:
            return self._names[key]
        name = self._watched_name(fixturedef)
        self._names[key] = name
        if name is not None:
            self.defs[name] = fixturedef
            self._by_arg.setdefault(str(fixturedef.argname), []).append(name)
        return name

    def _watched_name(self, fixturedef: Any) -> Optional[str]:
        try:
            if fixturedef.scope not in WIDE_SCOPES:
                return None
            code = getattr(fixturedef.func, "__code__", None)
            if code is None or not self.is_project_path(code.co_filename):
                return None
            return root_name(fixturedef)
        except Exception:
            return None

    # -- writes ---------------------------------------------------------------------------
    def set_up(self, fixturedef: Any) -> None:
        """A definition just produced its value: remember it as the fresh one."""
        name = self.learn(fixturedef)
        cached = _cached(fixturedef)
        if name is None or cached is None:
            return
        fp = Fingerprinter().fingerprint(cached[0])
        self._fresh[name] = (identity(cached), fp)

    def snapshot(
        self, out: dict[str, int], walker: Fingerprinter, touched: Optional[set[str]]
    ) -> None:
        """Fingerprint every fixture root into ``out`` (:data:`FRESH` when unchanged).

        A value is walked again when its cache entry changed (set up, torn down) or the
        test may have reached it (``touched``, as for python roots), else its last
        fingerprint stands.
        """
        for name, fixturedef in list(self.defs.items()):
            cached = _cached(fixturedef)
            if cached is None:
                out[name] = FRESH
                self._last.pop(name, None)
                continue
            key = identity(cached)
            last = self._last.get(name)
            if last is not None and last[0] == key and touched is not None and name not in touched:
                out[name] = last[1]
                continue
            fp = walker.fingerprint(cached[0], name)
            if self._fresh.get(name) == (key, fp):
                fp = FRESH
            self._last[name] = (key, fp)
            out[name] = fp

    # -- reads and values -----------------------------------------------------------------
    def requested(self, item: Any) -> set[str]:
        """Roots of the fixtures a test item uses (the definitions that apply to it)."""
        out: set[str] = set()
        info = getattr(item, "_fixtureinfo", None)
        name2defs = getattr(info, "name2fixturedefs", None) or {}
        for argname in getattr(item, "fixturenames", ()):
            defs = name2defs.get(argname)
            if defs:
                name = self.learn(defs[-1])  # the definition closest to the test wins
                if name is not None:
                    out.add(name)
            else:  # not resolved at collection (getfixturevalue): every definition
                out.update(self._by_arg.get(argname, ()))
        return out

    def value(self, name: str) -> tuple[bool, Any]:
        """``(set up, value)`` of root ``name`` now; KeyError if it names no definition."""
        cached = _cached(self.defs[name])
        return (False, None) if cached is None else (True, cached[0])


def current() -> Optional[FixtureRoots]:
    """The fixture roots of the session this process runs (set by the state probe)."""
    return CURRENT[0]


PLUGIN_NAME = "orderdep-state-fixtures"


def _make_plugin(roots: FixtureRoots, note_reads: Callable[[set[str]], None]) -> object:
    """A pytest plugin that records fresh fixture values and the fixtures each test uses."""
    import pytest  # only ever called inside a pytest process

    class FixtureHooks:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
            yield
            try:
                roots.set_up(fixturedef)
            except Exception:
                pass  # a value that cannot be walked now counts as changed: no harm

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_setup(self, item: Any) -> Any:
            try:
                note_reads(roots.requested(item))
            except Exception:
                pass
            yield

    return FixtureHooks()


def register(
    roots: FixtureRoots, pluginmanager: Any, note_reads: Callable[[set[str]], None]
) -> bool:
    """Register the fixture plugin with a pytest plugin manager; True if it is active."""
    try:
        if pluginmanager.get_plugin(PLUGIN_NAME) is None:
            pluginmanager.register(_make_plugin(roots, note_reads), PLUGIN_NAME)
    except Exception:
        return False
    return True
