"""The state probe's cost on a 500-test suite: within 3x of a plain run (CPU time).

CPU time of the child from the first test to the end of the order, so other load on the
machine does not decide the outcome. Both runs go through a timing probe; the plain one
does nothing else.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from orderdep.engine.config import EngineConfig
from orderdep.engine.probe import ProbeSpec
from orderdep.engine.runner import Engine

TIMING_PROBE = """
import time

from orderdep.analysis.state.probe import make_probe as make_state_probe


class Timed:
    def __init__(self, inner):
        self.inner = inner
        self.start = None

    def before_test(self, index, test_id):
        if self.start is None:
            self.start = time.process_time()
        if self.inner is not None:
            self.inner.before_test(index, test_id)

    def after_test(self, index, test_id):
        if self.inner is not None:
            self.inner.after_test(index, test_id)

    def result(self):
        out = self.inner.result() if self.inner is not None else {}
        out["cpu"] = time.process_time() - self.start
        return out


def make_probe(options, rootdir):
    state = options.pop("state", False)
    return Timed(make_state_probe(options, rootdir) if state else None)
"""

APP_MODULE = """
import functools, logging, re
log = logging.getLogger(__name__)
TABLE = {i: str(i) * 3 for i in range(200)}
REGISTRY = []
SETTINGS = {"debug": False, "level": 3, "names": ["a", "b", "c"]}
PATTERN = re.compile(r"\\d+")

class Counter:
    count = 0
    limits = (1, 2, 3)

    def inc(self):
        type(self).count += 1
        return self.count

@functools.lru_cache(maxsize=128)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def work(n):
    total = 0
    for i in range(n):
        total += len(TABLE[i % 200])
    return total
"""


def write_suite(root: Path, modules: int = 10, per_module: int = 50) -> None:
    """Small, fast tests of five kinds (globals, fixtures, tmp_path, monkeypatch, classes)."""
    (root / "app").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "app" / "__init__.py").write_text("")
    for m in range(5):
        (root / "app" / f"mod{m}.py").write_text(textwrap.dedent(APP_MODULE))
    for t in range(modules):
        body = [
            f"import os\nimport pytest\nfrom app import mod{t % 5} as m\n\n"
            "@pytest.fixture\ndef data():\n    return {'k': list(range(10))}\n"
        ]
        for i in range(per_module):
            kind = i % 5
            if kind == 0:
                body.append(f"def test_{i}():\n    assert m.work(300) > 0\n")
            elif kind == 1:
                body.append(f"def test_{i}(data):\n    assert m.fib({i % 30}) >= 0\n")
            elif kind == 2:
                body.append(
                    f"def test_{i}(tmp_path):\n    p = tmp_path / 'f.txt'\n"
                    "    p.write_text('x')\n    assert p.read_text() == 'x'\n"
                )
            elif kind == 3:
                body.append(
                    f"def test_{i}(monkeypatch):\n    monkeypatch.setenv('B_{i}', '1')\n"
                    f"    assert os.environ['B_{i}'] == '1'\n"
                )
            else:
                body.append(
                    f"class TestC{i}:\n    def test_{i}(self):\n"
                    "        assert m.Counter().inc() >= 1\n"
                )
        (root / "tests" / f"test_m{t}.py").write_text("\n".join(body))


@pytest.mark.slow
def test_probe_costs_less_than_3x_on_500_fast_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = tmp_path / "proj"
    write_suite(root)
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "odtiming.py").write_text(textwrap.dedent(TIMING_PROBE))
    config = EngineConfig(project=root, runner="fork", extra_env={"PYTHONPATH": str(probes)})
    plain, probed = [], []
    with Engine(config) as engine:
        order = engine.suite.ids
        assert len(order) == 500
        for _ in range(5):  # the fastest of five of each: other load only slows runs down
            run = engine.run(order, probe=ProbeSpec("odtiming", {}))
            plain.append(run.probe["cpu"])
            run = engine.run(order, probe=ProbeSpec("odtiming", {"state": True}))
            assert "error" not in run.probe, run.probe["error"]
            assert not run.failed_tests()
            probed.append(run.probe["cpu"])
    ratio = min(probed) / min(plain)
    print(f"plain {min(plain):.3f}s probed {min(probed):.3f}s ratio {ratio:.2f}")
    assert ratio < 3.0
