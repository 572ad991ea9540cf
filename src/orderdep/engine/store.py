"""The results store: every order ever run for a project, in SQLite.

Default location ``.orderdep/results.db`` under the target project; runs are keyed by the
project's code (relative paths and file contents, :func:`code_key`), never by where it
lives, so a copy or a clone with the store reuses them. Each finished order is
committed at once (WAL mode), so a job killed even with ``kill -9`` loses only the orders
that were running; rerunning the same job (same seed, same options) finds the finished
ones here and does not run them again.

Orders are stored compactly (see :mod:`orderdep.engine.storecodec`): every test id once,
in the ``tests`` table, and each order and its outcomes as compressed arrays of them.
Stores written by earlier versions (JSON per order, schema 1) are converted in place the
first time this version opens them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

from orderdep.core.outcomes import OrderResult, TestResult
from orderdep.engine.storecodec import decode_order, decode_results, encode_order, encode_results
from orderdep.errors import StoreError, shown_path

DEFAULT_STORE = Path(".orderdep") / "results.db"
#: ``PRAGMA user_version`` of the current layout (1: JSON per order; 2: compact).
SCHEMA_VERSION = 2
# Rows converted per transaction when migrating a schema-1 store.
MIGRATE_BATCH = 200

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT,
    order_key TEXT NOT NULL,
    code_key TEXT NOT NULL,
    order_json TEXT NOT NULL,  -- schema 1 only; '' since schema 2
    results_json TEXT NOT NULL,  -- schema 1 only; '' since schema 2
    runner TEXT NOT NULL,
    probe TEXT,
    seed INTEGER,
    tool_version TEXT NOT NULL,
    started REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    complete INTEGER NOT NULL,
    order_blob BLOB,
    results_blob BLOB
);
CREATE TABLE IF NOT EXISTS tests (
    id INTEGER PRIMARY KEY,
    nodeid TEXT NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS runs_by_order ON runs (code_key, order_key);
CREATE INDEX IF NOT EXISTS runs_by_job ON runs (job, order_key);
"""


def order_key(order: Sequence[str]) -> str:
    return hashlib.sha1("\n".join(order).encode()).hexdigest()


_DIGESTS: dict[tuple[str, int, int], bytes] = {}  # (path, size, mtime) -> content digest


def _digest(path: Path, st: os.stat_result) -> bytes:
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = hashlib.sha1(path.read_bytes()).digest()
    return _DIGESTS[key]


def code_key(project: Path) -> str:
    """Fingerprint of the project's Python and config files (relative path and content):
    runs of other code versions are never taken as evidence for this one, and a copy or a
    fresh clone of the project (other paths, other mtimes) reuses the same runs."""
    h = hashlib.sha1()
    for pattern in ("*.py", "*.ini", "*.cfg", "*.toml"):
        for path in sorted(project.rglob(pattern)):
            rel = path.relative_to(project)
            if any(
                part.startswith(".") or part in ("venv", "node_modules") for part in rel.parts[:-1]
            ):
                continue
            try:
                digest = _digest(path, path.stat())
            except OSError:
                continue
            h.update(rel.as_posix().encode() + b"\0" + digest + b"\n")
    return h.hexdigest()


def project_relative(value: Optional[str], project: Path) -> Optional[str]:
    """A path option as a job key holds it: relative when it points into the project, so
    the same command in a copy of the project names the same job."""
    if value is None or not os.path.isabs(value):
        return value
    try:
        return Path(value).resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return value


@contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """The store at ``path`` opened for reading only (no lock, no schema change)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1)
    try:
        yield db
    finally:
        db.close()


def recorded_walls(path: Path, project: Path, order: Sequence[str]) -> dict[str, float]:
    """Each runner's wall time in its latest complete run of ``order`` on the project's
    code version, read without opening the store for writing (no lock, no schema
    change); empty when there is no such run or the store cannot be read."""
    if not path.is_file():
        return {}
    try:
        with _read_only(path) as db:
            rows = db.execute(
                "SELECT runner, wall_seconds FROM runs WHERE code_key = ? AND order_key = ?"
                " AND complete = 1 AND probe IS NULL ORDER BY id",
                (code_key(project), order_key(order)),
            ).fetchall()
    except sqlite3.Error:
        return {}
    return {str(runner): float(wall) for runner, wall in rows}


def recorded_run(
    path: Path, project: Path, order: Sequence[str], runner: str
) -> Optional[OrderResult]:
    """The latest complete run of ``order`` by ``runner`` on the project's code version,
    read without opening the store for writing (no lock, no schema change); None when
    there is none or the store cannot be read."""
    if not path.is_file():
        return None
    try:
        with _read_only(path) as db:
            row = db.execute(
                "SELECT id, order_blob, results_blob, wall_seconds FROM runs WHERE code_key = ?"
                " AND order_key = ? AND runner = ? AND complete = 1 AND probe IS NULL"
                " AND order_blob IS NOT NULL ORDER BY id DESC LIMIT 1",
                (code_key(project), order_key(order), runner),
            ).fetchone()
            if row is None:
                return None
            rid, order_blob, results_blob, wall = row
            numbers = decode_order(order_blob)
            names = dict(db.execute("SELECT id, nodeid FROM tests"))
        result = OrderResult(
            [names[n] for n in numbers],
            decode_results(results_blob, numbers, names),
            runner=runner,
            wall_seconds=float(wall),
        )
    except (sqlite3.Error, KeyError, ValueError):
        return None
    result.run_id = int(rid)
    return result if result.order == list(order) else None


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
        self._ids: dict[str, int] = {}
        self._names: dict[int, str] = {}
        with self._guard("open"):
            self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(runs)")}
            if columns and "order_blob" not in columns:
                self._db.execute("ALTER TABLE runs ADD COLUMN order_blob BLOB")
                self._db.execute("ALTER TABLE runs ADD COLUMN results_blob BLOB")
            self._db.executescript(SCHEMA)
            self._db.commit()
            for number, nodeid in self._db.execute("SELECT id, nodeid FROM tests"):
                self._ids[nodeid] = number
                self._names[number] = nodeid
            if version < SCHEMA_VERSION:
                self._migrate()

    def _numbers(self, ids: Sequence[str]) -> list[int]:
        """Each test id's integer, adding the ids the store has not seen (lock held)."""
        new = [t for t in dict.fromkeys(ids) if t not in self._ids]
        if new:
            self._db.executemany(
                "INSERT OR IGNORE INTO tests (nodeid) VALUES (?)", [(t,) for t in new]
            )
            marks = ",".join("?" * len(new))
            for number, nodeid in self._db.execute(
                f"SELECT id, nodeid FROM tests WHERE nodeid IN ({marks})", new
            ):
                self._ids[nodeid] = number
                self._names[number] = nodeid
        return [self._ids[t] for t in ids]

    def _encode(self, order: Sequence[str], results: Sequence[TestResult]) -> tuple[bytes, bytes]:
        numbers = self._numbers(order)
        tests = self._numbers([r.test for r in results])
        return encode_order(numbers), encode_results(results, tests, numbers)

    def _migrate(self) -> None:
        """Convert a schema-1 store (JSON per order) to the compact layout, then reclaim
        the space (VACUUM)."""
        converted = 0
        while True:
            rows = self._db.execute(
                "SELECT id, order_json, results_json FROM runs WHERE order_blob IS NULL LIMIT ?",
                (MIGRATE_BATCH,),
            ).fetchall()
            if not rows:
                break
            updates = []
            for rid, order_json, results_json in rows:
                order = json.loads(order_json)
                results = [TestResult.from_json(r) for r in json.loads(results_json)]
                order_blob, results_blob = self._encode(order, results)
                updates.append((order_blob, results_blob, rid))
            self._db.executemany(
                "UPDATE runs SET order_blob = ?, results_blob = ?, order_json = '',"
                " results_json = '' WHERE id = ?",
                updates,
            )
            self._db.commit()
            converted += len(rows)
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._db.commit()
        if converted:
            self._db.execute("VACUUM")

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
        with self._lock, self._guard("write to"):
            order_blob, results_blob = self._encode(result.order, result.results)
        row = (
            job,
            order_key(result.order),
            self.code,
            "",
            "",
            order_blob,
            results_blob,
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
                "INSERT INTO runs (job, order_key, code_key, order_json, results_json,"
                " order_blob, results_blob, runner, probe, seed, tool_version, started,"
                " wall_seconds, complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        for rid, order_blob, results_blob, runner, wall in rows:
            numbers = decode_order(order_blob)
            res = OrderResult(
                [self._names[n] for n in numbers],
                decode_results(results_blob, numbers, self._names),
                runner=runner,
                wall_seconds=wall,
            )
            res.run_id = rid
            out.append(res)
        return out

    def runs_of(self, order: Sequence[str]) -> list[OrderResult]:
        """Every complete run of exactly this order on this code version (evidence)."""
        return self._rows(
            "SELECT id, order_blob, results_blob, runner, wall_seconds FROM runs"
            " WHERE code_key = ? AND order_key = ? AND complete = 1 AND probe IS NULL"
            " ORDER BY id",
            (self.code, order_key(order)),
        )

    def job_runs(self, job: str, order: Sequence[str]) -> list[OrderResult]:
        """Complete runs of ``order`` recorded by ``job`` on this code version (for resume)."""
        return self._rows(
            "SELECT id, order_blob, results_blob, runner, wall_seconds FROM runs"
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
