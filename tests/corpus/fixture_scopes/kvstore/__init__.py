"""A key-value store with a process-wide connection state."""

from __future__ import annotations

import json
from pathlib import Path

STATE = {"mode": "closed", "opened": 0}


class Connection:
    def __init__(self, seed: Path) -> None:
        self.data: dict[str, object] = json.loads(seed.read_text(encoding="utf-8"))
        STATE["mode"] = "open"
        STATE["opened"] = int(STATE["opened"]) + 1

    def get(self, key: str) -> object:
        if STATE["mode"] != "open":
            raise ConnectionError(f"store is {STATE['mode']}")
        return self.data.get(key)

    def close(self, *, maintenance: bool = False) -> None:
        STATE["mode"] = "maintenance" if maintenance else "closed"
