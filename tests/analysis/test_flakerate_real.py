"""Flake rates from the formulas agree with the fraction of failing random orders really run."""

from __future__ import annotations

import math
import random
import textwrap
from pathlib import Path

import pytest

from orderdep.core.flakerate import formula_all, formula_grouped, rate_grouped
from orderdep.core.odmodel import ODSpec
from orderdep.core.orders import random_order
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

VICTIM = "tests/test_a.py::test_victim"
POLLUTER = "tests/test_b.py::test_polluter"
CLEANER = "tests/test_b.py::test_cleaner"


def _project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "state.py").write_text("FLAGS = set()\n")
    files = {
        "test_a.py": """
            import state

            def test_victim():
                assert "dirty" not in state.FLAGS

            def test_a_two():
                pass
            """,
        "test_b.py": """
            import state

            def test_polluter():
                state.FLAGS.add("dirty")

            def test_b_two():
                pass

            def test_cleaner():
                state.FLAGS.discard("dirty")
            """,
        "test_c.py": """
            def test_c_one():
                pass

            def test_c_two():
                pass
            """,
    }
    for name, body in files.items():
        (root / "tests" / name).write_text(textwrap.dedent(body))
    return root


def _observed(engine: Engine, orders: list[list[str]]) -> float:
    results = engine.run_many(orders)
    return sum(r.outcome_of(VICTIM).is_failure for r in results) / len(results)


def _close(observed: float, expected: float, n: int) -> bool:
    stderr = math.sqrt(expected * (1 - expected) / n)
    return abs(observed - expected) < 4 * stderr


@pytest.mark.slow
def test_formulas_match_the_failures_of_random_orders_run_for_real(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    spec = ODSpec(VICTIM, "victim", polluters=[POLLUTER], cleaners={POLLUTER: [CLEANER]})
    n = 240
    with Engine(EngineConfig(project)) as engine:
        groups = list(engine.suite.groups("module").values())
        singles = [[t] for t in engine.suite.ids]
        rng = random.Random(7)
        grouped_orders = [random_order(groups, rng) for _ in range(n)]
        free_orders = [random_order(singles, rng) for _ in range(n)]
        observed_grouped = _observed(engine, grouped_orders)
        observed_all = _observed(engine, free_orders)

    expected_grouped = formula_grouped(spec, groups)
    expected_all = formula_all(spec, engine.suite.ids)
    assert expected_grouped is not None and expected_all is not None
    # polluter and cleaner share a module: kept together they fail 1/4 of the time, else 1/3
    assert expected_grouped == pytest.approx(1 / 4) and expected_all == pytest.approx(1 / 3)
    sampled = rate_grouped(spec, groups, random.Random(1), 20_000).rate
    assert sampled is not None and expected_grouped == pytest.approx(sampled, abs=0.02)
    assert _close(observed_grouped, expected_grouped, n), (observed_grouped, expected_grouped)
    assert _close(observed_all, expected_all, n), (observed_all, expected_all)
