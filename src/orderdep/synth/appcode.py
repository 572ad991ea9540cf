"""Source of the ``app`` package in generated suites.

Each app module has a fixed header; plantings append their own snippets (one class, cached
function or setting per planted test). ``text``, ``money`` and ``listutil`` hold the pure
helpers the filler tests (:mod:`orderdep.synth.fillers`) exercise. Some modules offer a
reset (``registry.clear()``, ``events.reset()``, ``flags.reset()``, ``Pool.reset()``) and
some do not, as in real code.
"""

from __future__ import annotations

import textwrap


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


APP_INIT = _src('''
    """A small order-management application."""

    __version__ = "0.3.0"
    ''')

TEXT = _src('''
    """Text helpers."""

    from __future__ import annotations


    def slugify(value: str) -> str:
        """Lower-case ``value`` and join its alphanumeric runs with dashes."""
        out: list[str] = []
        dash = False
        for ch in value.lower():
            if ch.isalnum():
                out.append(ch)
                dash = False
            elif out and not dash:
                out.append("-")
                dash = True
        return "".join(out).rstrip("-")


    def truncate(value: str, width: int, suffix: str = "...") -> str:
        if len(value) <= width:
            return value
        return value[: max(0, width - len(suffix))] + suffix


    def initials(name: str) -> str:
        return "".join(part[0].upper() for part in name.split())
    ''')

MONEY = _src('''
    """Amounts are integers in cents."""

    from __future__ import annotations


    def format_cents(cents: int, currency: str = "EUR") -> str:
        sign = "-" if cents < 0 else ""
        cents = abs(cents)
        return f"{sign}{cents // 100}.{cents % 100:02d} {currency}"


    def parse_amount(text: str) -> int:
        """Parse ``"12.5"`` into 1250 cents."""
        whole, _, frac = text.strip().partition(".")
        return int(whole) * 100 + int((frac + "00")[:2])


    def percent_of(cents: int, percent: int) -> int:
        """``percent`` % of ``cents``, rounded half up."""
        return (cents * percent + 50) // 100


    def split_evenly(cents: int, parts: int) -> list[int]:
        """Split an amount into ``parts`` shares."""
        return [cents // parts] * parts
    ''')

LISTUTIL = _src('''
    """Small sequence helpers."""

    from __future__ import annotations

    from collections.abc import Iterable, Sequence
    from typing import TypeVar

    T = TypeVar("T")


    def chunked(items: Sequence[T], size: int) -> list[list[T]]:
        return [list(items[i : i + size]) for i in range(0, len(items), size)]


    def dedupe(items: Iterable[T]) -> list[T]:
        """Drop repeated items, keeping the first occurrence."""
        seen: set[T] = set()
        out: list[T] = []
        for item in items:
            if item not in seen:
                seen.add(item)
                out.append(item)
        return out


    def flatten(groups: Iterable[Iterable[T]]) -> list[T]:
        return [item for group in groups for item in group]
    ''')

HEADERS: dict[str, str] = {
    "text": TEXT,
    "money": MONEY,
    "listutil": LISTUTIL,
    "registry": _src('''
        """A process-wide registry of named handlers."""

        from __future__ import annotations

        from typing import Any, Callable

        Handler = Callable[..., Any]

        _ENTRIES: dict[str, Handler] = {}


        def register(name: str, handler: Handler, *, replace: bool = False) -> None:
            if name in _ENTRIES and not replace:
                raise KeyError(f"a handler is already registered as {name!r}")
            _ENTRIES[name] = handler


        def lookup(name: str) -> Handler | None:
            return _ENTRIES.get(name)


        def unregister(name: str) -> None:
            _ENTRIES.pop(name, None)


        def names() -> list[str]:
            return sorted(_ENTRIES)


        def clear() -> None:
            _ENTRIES.clear()
        '''),
    "models": _src('''
        """Documents with amounts shown in the store's currency."""

        from __future__ import annotations
        '''),
    "config": _src('''
        """Settings, overridable through ``APP_*`` environment variables."""

        from __future__ import annotations

        import os

        PREFIX = "APP_"


        def get_int(name: str, default: int) -> int:
            raw = os.environ.get(PREFIX + name)
            return default if raw is None else int(raw)
        '''),
    "storage": _src('''
        """JSON documents kept in the data directory."""

        from __future__ import annotations

        import json
        import os
        from pathlib import Path
        from typing import Any


        def data_dir() -> Path:
            configured = os.environ.get("APP_DATA_DIR")
            if configured:
                path = Path(configured)
            else:
                path = Path(__file__).resolve().parent.parent / "var"
            path.mkdir(parents=True, exist_ok=True)
            return path


        def save(name: str, document: dict[str, Any]) -> Path:
            path = data_dir() / f"{name}.json"
            path.write_text(json.dumps(document, sort_keys=True), encoding="utf-8")
            return path


        def load(name: str) -> dict[str, Any] | None:
            path = data_dir() / f"{name}.json"
            if not path.exists():
                return None
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data


        def delete(name: str) -> bool:
            path = data_dir() / f"{name}.json"
            if path.exists():
                path.unlink()
                return True
            return False
        '''),
    "pricing": _src('''
        """Shipping rates, looked up once per tier."""

        from __future__ import annotations

        import functools
        '''),
    "userprefs": _src('''
        """Per-user preferences stored in ``~/.app/prefs.json``."""

        from __future__ import annotations

        import json
        from pathlib import Path
        from typing import Any


        def prefs_path() -> Path:
            return Path.home() / ".app" / "prefs.json"


        def load_prefs() -> dict[str, Any]:
            path = prefs_path()
            if not path.exists():
                return {}
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data


        def get_pref(key: str, default: Any = None) -> Any:
            return load_prefs().get(key, default)


        def set_pref(key: str, value: Any) -> None:
            prefs = load_prefs()
            prefs[key] = value
            path = prefs_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(prefs, sort_keys=True), encoding="utf-8")


        def clear_pref(key: str) -> None:
            prefs = load_prefs()
            if prefs.pop(key, None) is not None:
                prefs_path().write_text(json.dumps(prefs, sort_keys=True), encoding="utf-8")
        '''),
    "export": _src('''
        """CSV export of report rows."""

        from __future__ import annotations

        import csv
        import os
        from collections.abc import Iterable, Sequence
        from pathlib import Path


        def export_rows(
            rows: Iterable[Sequence[object]],
            directory: Path | str,
            filename: str = "export.csv",
        ) -> Path:
            target = Path(directory).resolve()
            target.mkdir(parents=True, exist_ok=True)
            os.chdir(target)
            with open(filename, "w", newline="", encoding="utf-8") as fh:
                csv.writer(fh).writerows(rows)
            return target / filename
        '''),
    "templates": _src('''
        """Message templates shipped in the ``templates/`` directory."""

        from __future__ import annotations

        from pathlib import Path

        TEMPLATE_DIR = Path("templates")


        def render(template: str, **context: object) -> str:
            return (TEMPLATE_DIR / template).read_text(encoding="utf-8").format(**context)
        '''),
    "plugins": _src('''
        """Optional plugins, found on the import path."""

        from __future__ import annotations

        import importlib.util
        import sys
        from pathlib import Path


        def add_plugin_dir(path: Path | str) -> None:
            entry = str(path)
            if entry not in sys.path:
                sys.path.insert(0, entry)


        def is_available(name: str) -> bool:
            return importlib.util.find_spec(name) is not None
        '''),
    "serializers": _src('''
        """Encoders that use a compiled speed-up module when one is installed."""

        from __future__ import annotations

        import importlib
        import json
        from types import ModuleType
        from typing import Any


        def _speedups(kind: str) -> ModuleType | None:
            try:
                return importlib.import_module(f"{kind}_speedups")
            except ImportError:
                return None


        def backend(kind: str) -> str:
            return "native" if _speedups(kind) is not None else "pure-python"


        def encode(kind: str, obj: Any) -> str:
            return json.dumps(obj, sort_keys=True)
        '''),
    "catalog": _src('''
        """The plans a customer can subscribe to."""

        from __future__ import annotations

        from collections.abc import Iterable


        class Catalog:
            def __init__(self, plans: Iterable[str]) -> None:
                self._plans = list(plans)

            def names(self) -> list[str]:
                return list(self._plans)

            def add(self, plan: str) -> None:
                if plan not in self._plans:
                    self._plans.append(plan)

            def discard(self, plan: str) -> None:
                if plan in self._plans:
                    self._plans.remove(plan)
        '''),
    "cart": _src('''
        """Shopping carts."""

        from __future__ import annotations


        class Cart:
            def __init__(self) -> None:
                self._lines: dict[str, int] = {}

            def add(self, sku: str, quantity: int = 1) -> None:
                self._lines[sku] = self._lines.get(sku, 0) + quantity

            def remove(self, sku: str) -> None:
                self._lines.pop(sku, None)

            def count(self) -> int:
                return sum(self._lines.values())

            def clear(self) -> None:
                self._lines.clear()
        '''),
    "events": _src('''
        """In-process publish/subscribe."""

        from __future__ import annotations

        from typing import Any, Callable

        Handler = Callable[[Any], Any]

        _HANDLERS: dict[str, list[Handler]] = {}


        def subscribe(topic: str, handler: Handler) -> None:
            handlers = _HANDLERS.setdefault(topic, [])
            if handler not in handlers:
                handlers.append(handler)


        def publish(topic: str, payload: Any) -> int:
            """Call every handler of ``topic``; return how many were called."""
            handlers = list(_HANDLERS.get(topic, ()))
            for handler in handlers:
                handler(payload)
            return len(handlers)


        def unsubscribe_all(topic: str) -> None:
            _HANDLERS.pop(topic, None)


        def reset() -> None:
            _HANDLERS.clear()
        '''),
    "flags": _src('''
        """Feature flags."""

        from __future__ import annotations

        _ENABLED: set[str] = set()


        def enable(name: str) -> None:
            _ENABLED.add(name)


        def disable(name: str) -> None:
            _ENABLED.discard(name)


        def is_enabled(name: str) -> bool:
            return name in _ENABLED


        def layout_for(area: str) -> str:
            if is_enabled(f"{area}.beta"):
                return "beta"
            if is_enabled(f"{area}.compact"):
                return "compact"
            return "classic"


        def reset() -> None:
            _ENABLED.clear()
        '''),
    "pool": _src('''
        """Connection pools with a fixed number of leases."""

        from __future__ import annotations

        from dataclasses import dataclass


        class PoolExhausted(RuntimeError):
            pass


        @dataclass(frozen=True)
        class Lease:
            pool: str
            owner: str


        class Pool:
            def __init__(self, name: str, size: int) -> None:
                self.name = name
                self.size = size
                self._leases: dict[str, Lease] = {}

            def acquire(self, owner: str) -> Lease:
                if owner in self._leases:
                    return self._leases[owner]
                if len(self._leases) >= self.size:
                    raise PoolExhausted(f"{self.name}: all {self.size} connections in use")
                lease = self._leases[owner] = Lease(self.name, owner)
                return lease

            def release(self, owner: str) -> None:
                self._leases.pop(owner, None)

            def in_use(self) -> int:
                return len(self._leases)

            def reset(self) -> None:
                self._leases.clear()


        _POOLS: dict[str, Pool] = {}


        def get_pool(name: str, size: int = 2) -> Pool:
            if name not in _POOLS:
                _POOLS[name] = Pool(name, size)
            return _POOLS[name]
        '''),
    "db": _src('''
        """A tiny in-memory table store."""

        from __future__ import annotations

        from collections.abc import Iterable
        from typing import Any


        class UnknownTable(KeyError):
            pass


        _TABLES: dict[str, list[dict[str, Any]]] = {}


        def create_table(name: str) -> None:
            _TABLES.setdefault(name, [])


        def ensure_tables(names: Iterable[str]) -> None:
            for name in names:
                create_table(name)


        def tables() -> list[str]:
            return sorted(_TABLES)


        def insert(table: str, row: dict[str, Any]) -> int:
            if table not in _TABLES:
                raise UnknownTable(table)
            _TABLES[table].append(dict(row))
            return len(_TABLES[table]) - 1


        def fetch(table: str, row_id: int) -> dict[str, Any]:
            if table not in _TABLES:
                raise UnknownTable(table)
            return dict(_TABLES[table][row_id])
        '''),
    "migrations": _src('''
        """Schema migrations, applied one step at a time in plan order."""

        from __future__ import annotations

        PLANS: dict[str, tuple[str, ...]] = {}
        _APPLIED: dict[str, list[str]] = {}


        class SchemaOutdated(RuntimeError):
            pass


        def applied(area: str) -> list[str]:
            return list(_APPLIED.get(area, ()))


        def apply(area: str, step: str) -> bool:
            """Apply ``step`` if it is the next pending step of ``area``'s plan."""
            done = _APPLIED.setdefault(area, [])
            plan = PLANS[area]
            if len(done) < len(plan) and plan[len(done)] == step:
                done.append(step)
                return True
            return False


        def require_current(area: str) -> None:
            missing = [s for s in PLANS[area] if s not in _APPLIED.get(area, ())]
            if missing:
                raise SchemaOutdated(f"{area}: pending migrations {missing}")
        '''),
    "extensions": _src('''
        """Extensions installed into the running application."""

        from __future__ import annotations


        class AlreadyInstalled(RuntimeError):
            pass


        _INSTALLED: dict[str, str] = {}


        def install(name: str, version: str = "1.0") -> None:
            if name in _INSTALLED:
                raise AlreadyInstalled(name)
            _INSTALLED[name] = version


        def installed() -> list[str]:
            return sorted(_INSTALLED)
        '''),
}


def balancer_source(replica_share: float) -> str:
    """``app/balancer.py``: reads go to a replica with probability ``replica_share``."""
    return _src(f'''
        """Chooses the database node that serves a read."""

        from __future__ import annotations

        import random

        REPLICA_SHARE = {replica_share!r}

        _rng = random.SystemRandom()


        def choose_node() -> str:
            return "replica" if _rng.random() < REPLICA_SHARE else "primary"
        ''')
