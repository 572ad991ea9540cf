"""Headers of the stateful ``app`` modules of generated suites (registries, settings,
storage, caches, events, pools...), and of the pure helper modules, by module name.

Plantings (:mod:`orderdep.synth.channels`) append their own snippets to these headers.
"""

from __future__ import annotations

from orderdep.synth.app_services import SERVICE_HEADERS
from orderdep.synth.appcode import LISTUTIL, MONEY, TEXT, source

HEADERS: dict[str, str] = {
    "text": TEXT,
    "money": MONEY,
    "listutil": LISTUTIL,
    "registry": source('''
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
    "models": source('''
        """Documents with amounts shown in the store's currency."""

        from __future__ import annotations
        '''),
    "config": source('''
        """Settings, overridable through ``APP_*`` environment variables."""

        from __future__ import annotations

        import os

        PREFIX = "APP_"


        def get_int(name: str, default: int) -> int:
            raw = os.environ.get(PREFIX + name)
            return default if raw is None else int(raw)
        '''),
    "storage": source('''
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
    "pricing": source('''
        """Shipping rates, looked up once per tier."""

        from __future__ import annotations

        import functools
        '''),
    "userprefs": source('''
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
    "export": source('''
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
    "templates": source('''
        """Message templates shipped in the ``templates/`` directory."""

        from __future__ import annotations

        from pathlib import Path

        TEMPLATE_DIR = Path("templates")


        def render(template: str, **context: object) -> str:
            return (TEMPLATE_DIR / template).read_text(encoding="utf-8").format(**context)
        '''),
    "plugins": source('''
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
    "serializers": source('''
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
    "catalog": source('''
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
    **SERVICE_HEADERS,
}
