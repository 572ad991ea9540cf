"""The results store: every order ever run for a project, in SQLite.

Default location ``.orderdep/results.db`` under the target project. Each finished order is
committed at once (WAL mode), so a job killed even with ``kill -9`` loses only the orders
that were running; rerunning the same job (same seed, same options) finds the finished
ones here and does not run them again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

from orderdep.core.outcomes import OrderResult, TestResult
from orderdep.errors import StoreError, shown_path

DEFAULT_STORE = Path(".orderdep") / "results.db"

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT,
    order_key TEXT NOT NULL,
    code_key TEXT NOT NULL,
    order_json TEXT NOT NULL,
    results_json TEXT NOT NULL,
    runner TEXT NOT NULL,
    probe TEXT,
    seed INTEGER,
    tool_version TEXT NOT NULL,
    started REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    complete INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_order ON runs (code_key, order_key);
CREATE INDEX IF NOT EXISTS runs_by_job ON runs (job, order_key);
"""


def order_key(order: Sequence[str]) -> str:
    return hashlib.sha1("\n".join(order).encode()).hexdigest()


def code_key(project: Path) -> str:
    """Fingerprint of the project's Python and config files: runs of other code versions
    are never taken as evidence for this one."""
    h = hashlib.sha1()
    for pattern in ("*.py", "*.ini", "*.cfg", "*.toml"):
        for path in sorted(project.rglob(pattern)):
            rel = path.relative_to(project)
            if any(
                part.startswith(".") or part in ("venv", "node_modules") for part in rel.parts[:-1]
            ):
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


class Store:
    """Thread-safe access to one results database."""

    def __init__(self, path: Path, *, code: str = "") -> None:
        from orderdep import __version__

        self.path = path
        self.code = code
        self.version = __version__
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the results store {shown_path(path)!r} "
                f"({shown_path(path.parent)!r}: {exc.strerror or exc}); "
                "pass --store PATH to keep it in a writable place"
            ) from None
        with self._guard("open"):
            self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
            self._db.commit()

    @classmethod
    def for_project(cls, project: Path, path: Optional[Path] = None) -> Store:
        return cls(path or project / DEFAULT_STORE, code=code_key(project))

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn SQLite's errors into a :class:`StoreError` that names the store."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise StoreError(
                f"cannot {action} the results store {shown_path(self.path)!r} ({exc}); "
                "pass --store PATH to keep it in a writable place"
            ) from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"the results store {shown_path(self.path)!r} is not a SQLite database "
                f"({exc}); move it away or pass --store PATH"
            ) from None

    def record(
        self,
        result: OrderResult,
        *,
        job: Optional[str] = None,
        seed: Optional[int] = None,
        probe: Optional[str] = None,
    ) -> int:
        row = (
            job,
            order_key(result.order),
            self.code,
            json.dumps(result.order),
            json.dumps([r.to_json() for r in result.results]),
            result.runner,
            probe,
            seed,
            self.version,
            time.time(),
            result.wall_seconds,
            int(not result.interrupted),
        )
        with self._lock, self._guard("write to"):
            cur = self._db.execute(
                "INSERT INTO runs (job, order_key, code_key, order_json, results_json, runner,"
                " probe, seed, tool_version, started, wall_seconds, complete)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            self._db.commit()
            rowid = cur.lastrowid
        result.run_id = rowid
        return int(rowid or 0)

    def _rows(self, sql: str, args: tuple[object, ...]) -> list[OrderResult]:
        with self._lock, self._guard("read"):
            rows = self._db.execute(sql, args).fetchall()
        out = []
        for rid, order_json, results_json, runner, wall in rows:
            res = OrderResult(
                json.loads(order_json),
                [TestResult.from_json(r) for r in json.loads(results_json)],
                runner=runner,
                wall_seconds=wall,
            )
            res.run_id = rid
            out.append(res)
        return out

    def runs_of(self, order: Sequence[str]) -> list[OrderResult]:
        """Every complete run of exactly this order on this code version (evidence)."""
        return self._rows(
            "SELECT id, order_json, results_json, runner, wall_seconds FROM runs"
            " WHERE code_key = ? AND order_key = ? AND complete = 1 AND probe IS NULL"
            " ORDER BY id",
            (self.code, order_key(order)),
        )

    def job_runs(self, job: str, order: Sequence[str]) -> list[OrderResult]:
        """Complete runs of ``order`` recorded by ``job`` on this code version (for resume)."""
        return self._rows(
            "SELECT id, order_json, results_json, runner, wall_seconds FROM runs"
            " WHERE job = ? AND code_key = ? AND order_key = ? AND complete = 1"
            " AND probe IS NULL ORDER BY id",
            (job, self.code, order_key(order)),
        )

    def count(self) -> int:
        with self._lock, self._guard("read"):
            return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
