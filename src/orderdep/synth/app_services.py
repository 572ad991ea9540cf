"""Headers of the service-like ``app`` modules of generated suites: a cart, events,
feature flags, a connection pool, a database, migrations and extensions."""

from __future__ import annotations

from orderdep.synth.appcode import source

SERVICE_HEADERS: dict[str, str] = {
    "cart": source('''
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
    "events": source('''
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
    "flags": source('''
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
    "pool": source('''
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
    "db": source('''
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
    "migrations": source('''
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
    "extensions": source('''
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
