"""A brute-force fork runner, the yardstick for orderdep's fork backend in bench_engine.py.

Loaded into one ``python -m pytest`` process (``-p bruteforce_fork`` with this directory on
``PYTHONPATH``). After collection it runs the orders listed in the JSON file named by
``BRUTEFORCE_ORDERS``: per order it forks, the child runs the items with pytest's own
protocol and leaves with ``os._exit``, the parent waits. Nothing else: no working copy,
no capture restart, no pre-forking, no results beyond a pass/fail count. It writes the
mean wall seconds per order to the file named by ``BRUTEFORCE_OUT``.
"""

from __future__ import annotations

import gc
import json
import os
import time
from pathlib import Path

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool:
    orders = json.loads(Path(os.environ["BRUTEFORCE_ORDERS"]).read_text())
    by_id = {item.nodeid: item for item in session.items}
    hook = session.config.hook
    gc.collect()
    gc.freeze()
    start = time.perf_counter()
    for order in orders:
        items = [by_id[t] for t in order]
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                for i, item in enumerate(items):
                    nextitem = items[i + 1] if i + 1 < len(items) else None
                    hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            except BaseException:
                code = 3
            os._exit(code)
        os.waitpid(pid, 0)
    wall = (time.perf_counter() - start) / max(len(orders), 1)
    Path(os.environ["BRUTEFORCE_OUT"]).write_text(json.dumps({"wall": wall}))
    return True
