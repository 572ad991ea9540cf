"""A background job queue whose worker thread starts when the module is imported."""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Optional

RESULTS: list[Any] = []
_jobs: queue.Queue[Optional[tuple[Callable[[], Any], threading.Event, list[Any]]]] = queue.Queue()


def _work() -> None:
    while True:
        item = _jobs.get()
        if item is None:
            return
        fn, done, box = item
        try:
            box.append(fn())
        except Exception as exc:
            box.append(exc)
        RESULTS.append(box[0])
        done.set()


WORKER = threading.Thread(target=_work, name="jobs-worker", daemon=True)
WORKER.start()


def submit(fn: Callable[[], Any], timeout: float = 10.0) -> Any:
    if not WORKER.is_alive():
        raise RuntimeError("the job worker has stopped")
    done, box = threading.Event(), []
    _jobs.put((fn, done, box))
    if not done.wait(timeout):
        raise TimeoutError("job did not finish")
    return box[0]


def shutdown() -> None:
    _jobs.put(None)
    WORKER.join(timeout=10)
