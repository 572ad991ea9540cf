"""A root's value as one capture saw it (what the Debugger's probe recorded)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class ValueView:
    """A root's value in one capture: present or not, its description and literal."""

    present: bool
    desc: Any = None
    literal: Optional[str] = None
    type: str = ""
    importable: Optional[str] = None  # ``module:qualname`` of a function or class

    @classmethod
    def from_capture(cls, data: Optional[dict[str, Any]]) -> ValueView:
        if not data or not data.get("present"):
            return cls(False)
        where = data.get("importable")
        return cls(
            True,
            data.get("desc"),
            data.get("literal"),
            str(data.get("type", "")),
            str(where) if where else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {"present": self.present, "type": self.type, "literal": self.literal}


__all__ = ["ValueView"]
