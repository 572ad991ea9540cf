"""Isolation: state leaks inside an order (that is what order dependence is) but never from
one order to the next, nor between orders running at the same time (``jobs=2``).

The planted project (see ``conftest.py``) has a polluter/victim pair for every channel a
test can leak through, module- and session-scoped fixtures included, plus brittles.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine

if TYPE_CHECKING:
    from conftest import EngineFactory, Planted, ProjectWriter

RUNNERS = ("fork", "subprocess")


def outcomes(result: OrderResult) -> list[Outcome]:
    return [r.outcome for r in result.results]


def snapshot(root: Path) -> dict[str, str]:
    """Relative path -> content hash of every file under ``root``."""
    return {
        str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module", params=RUNNERS)
def planted_engine(request: pytest.FixtureRequest, planted: Planted) -> Iterator[Engine]:
    with Engine(EngineConfig(planted.root, runner=request.param)) as engine:
        yield engine


def test_every_channel_leaks_within_an_order_and_never_into_the_next(
    planted: Planted, planted_engine: Engine
) -> None:
    before = snapshot(planted.root)
    pairs = [(planted.polluters[v], v) for v in planted.victims]
    polluted = [t for pair in pairs for t in pair]
    result = planted_engine.run(polluted)
    assert outcomes(result) == [Outcome.PASSED, Outcome.FAILED] * len(pairs)
    assert outcomes(result) == planted.expected(polluted)

    alone = planted_engine.run(planted.victims)
    failures = {r.test: r.message for r in alone.results if r.outcome is not Outcome.PASSED}
    assert failures == {}

    # The real project, HOME and temp dir never saw any of it.
    assert snapshot(planted.root) == before
    assert not (Path.home() / ".odrc").exists()
    assert not (Path(tempfile.gettempdir()) / "od_planted.tmp").exists()


def _channel(victim: str) -> str:
    return victim.rsplit("::", 1)[-1].replace("test_v_", "")


def test_each_channel_alone(planted: Planted, make_engine: EngineFactory) -> None:
    # Channel by channel on the fast backend, so a broken channel is named in the failure.
    engine = make_engine(planted.root, runner="fork")
    p, f = Outcome.PASSED, Outcome.FAILED
    wrong: dict[str, list[list[Outcome]]] = {}
    for victim in planted.victims:
        polluter = planted.polluters[victim]
        got = [
            outcomes(engine.run([victim])),
            outcomes(engine.run([polluter, victim])),
            outcomes(engine.run([victim])),
            outcomes(engine.run([victim, polluter, victim])),
        ]
        if got != [[p], [p, f], [p], [p, p, f]]:
            wrong[_channel(victim)] = got
    assert wrong == {}
    # Enough orders ran for later children to pre-fault the pages earlier ones wrote
    # (orderdep.engine.prefault); the server's page files do not linger.
    assert engine.orders_run > 8
    assert not list(engine._workers[0].sandbox.workdir.glob("*.pages"))


def planted_orders(planted: Planted, ids: list[str]) -> list[list[str]]:
    """Original, reversed, every victim after every polluter, victims alone, brittles alone
    and after their state-setters."""
    orders = [list(ids), ids[::-1]]
    for polluter in dict.fromkeys(planted.polluters.values()):
        orders.append([polluter, *planted.victims])
    orders.append(list(planted.victims))
    for brittle, setter in planted.setters.items():
        orders += [[brittle], [setter, brittle]]
    return orders


@pytest.mark.slow
def test_fork_and_subprocess_agree_on_the_planted_suite(planted: Planted) -> None:
    runs: dict[str, list[OrderResult]] = {}
    for runner, jobs in (("fork", 1), ("subprocess", 2)):
        with Engine(EngineConfig(planted.root, runner=runner, jobs=jobs)) as engine:
            orders = planted_orders(planted, engine.suite.ids)
            runs[runner] = engine.run_many(orders)
    assert len(orders) >= 20
    for runner, results in runs.items():
        for order, result in zip(orders, results):
            assert result.order == order
            assert outcomes(result) == planted.expected(order), (runner, order)
    fork, sub = runs["fork"], runs["subprocess"]
    assert [outcomes(r) for r in fork] == [outcomes(r) for r in sub]
    # The leaks did show: every victim and every brittle failed somewhere.
    failed = {r.test for res in fork for r in res.results if r.outcome is Outcome.FAILED}
    assert failed == set(planted.victims) | set(planted.brittles)


# -- files the project's own code creates while pytest collects ------------------------

GENERATED_FILES = {
    "conftest.py": """
        from pathlib import Path

        # Like a project that prepares a data file when its conftest is imported.
        (Path(__file__).parent / "generated.txt").write_text("generated")
    """,
    "test_gen.py": """
        from pathlib import Path

        GENERATED = Path(__file__).parent / "generated.txt"


        def test_remove():
            GENERATED.unlink()


        def test_read():
            assert GENERATED.read_text() == "generated"
    """,
}


@pytest.mark.parametrize("runner", ["fork", "subprocess"])
def test_files_made_during_collection_are_back_for_the_next_order(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    engine = make_engine(make_project(GENERATED_FILES), runner=runner)
    assert [r.outcome for r in engine.run(["test_gen.py::test_remove"]).results] == [Outcome.PASSED]
    assert [r.outcome for r in engine.run(["test_gen.py::test_read"]).results] == [Outcome.PASSED]


# -- two workers at once -----------------------------------------------------------

LOCK_FILES = {
    "tests/test_locks.py": """
        import os
        import sqlite3
        import tempfile
        import time
        from pathlib import Path

        ROOT = Path(__file__).resolve().parent.parent
        PAUSE = 0.2


        def trace(test, phase):
            with open(os.environ["OD_TRACE"], "a") as fh:
                fh.write(f"{ROOT} {os.getpid()} {test} {phase} {time.time()!r}\\n")


        def claim(path, test):
            trace(test, "claim")
            assert not path.exists(), f"{path} is already there"
            path.write_text(str(os.getpid()))
            time.sleep(PAUSE)
            trace(test, "end")


        def create_table(path, test):
            trace(test, "claim")
            db = sqlite3.connect(str(path))
            db.execute("CREATE TABLE jobs (id INTEGER)")
            db.commit()
            time.sleep(PAUSE)
            db.close()
            trace(test, "end")


        def test_lock_tree():
            claim(ROOT / "app.lock", "lock_tree")


        def test_lock_tmp():
            claim(Path(tempfile.gettempdir()) / "app.lock", "lock_tmp")


        def test_lock_home():
            claim(Path.home() / ".app.lock", "lock_home")


        def test_db_tree():
            create_table(ROOT / "app.db", "db_tree")


        def test_db_tmp():
            create_table(Path(tempfile.gettempdir()) / "app.db", "db_tmp")
    """,
}


def _contended(trace: list[list[str]]) -> int:
    """How many claims happened while another worker's order already held the same file.

    An order holds a file from its claim until the order ends (nothing deletes it), so a
    claim inside that span proves the two workers use different files.
    """
    end_of: dict[tuple[str, str], float] = defaultdict(float)
    claims: list[tuple[str, str, str, float]] = []
    for root, pid, test, phase, when in trace:
        t = float(when)
        end_of[root, pid] = max(end_of[root, pid], t)
        if phase == "claim":
            claims.append((root, pid, test, t))
    hits = 0
    for root, _pid, test, t in claims:
        for root2, pid2, test2, t2 in claims:
            if root2 != root and test2 == test and t2 < t < end_of[root2, pid2]:
                hits += 1
    return hits


def test_two_workers_run_orders_at_once_in_private_copies(
    make_project: ProjectWriter, runner: str, tmp_path: Path
) -> None:
    project = make_project(LOCK_FILES)
    trace_path = tmp_path / "trace.log"
    config = EngineConfig(project, runner=runner, jobs=2, extra_env={"OD_TRACE": str(trace_path)})
    with Engine(config) as engine:
        ids = engine.suite.ids
        orders = [list(ids) for _ in range(4)]
        twice = [t for t in ids for _ in (0, 1)]
        orders.append(twice)
        results = engine.run_many(orders)
    for result in results[:-1]:
        assert [r.message for r in result.results if r.message] == []
        assert outcomes(result) == [Outcome.PASSED] * len(ids)
    # The files are real: the same test twice in one order finds its own file.
    assert outcomes(results[-1]) == [Outcome.PASSED, Outcome.FAILED] * len(ids)
    messages = [r.message for r in results[-1].results if r.outcome is Outcome.FAILED]
    assert sum("already there" in m for m in messages) == 3
    assert sum("table jobs already exists" in m for m in messages) == 2

    trace = [line.split() for line in trace_path.read_text().splitlines()]
    workers = {root for root, *_ in trace}
    assert len(workers) == 2
    assert all(Path(root).resolve() != project.resolve() for root in workers)
    assert _contended(trace) > 0
    assert sorted(os.listdir(project)) == ["tests"]  # the project itself stayed clean


def test_a_test_that_retargets_a_symlink_does_not_break_the_engine(
    make_project: ProjectWriter, make_engine: EngineFactory
) -> None:
    project = make_project(
        {
            "a.txt": "a\n",
            "b.txt": "b\n",
            "test_link.py": """
                from pathlib import Path

                LINK = Path(__file__).parent / "current.txt"


                def test_switch():
                    LINK.unlink()
                    LINK.symlink_to("b.txt")


                def test_reads_a():
                    assert LINK.read_text() == "a\\n"
            """,
        }
    )
    (project / "current.txt").symlink_to("a.txt")
    engine = make_engine(project, runner="fork")
    switched = engine.run(["test_link.py::test_switch", "test_link.py::test_reads_a"])
    assert outcomes(switched) == [Outcome.PASSED, Outcome.FAILED]
    assert outcomes(engine.run(["test_link.py::test_reads_a"])) == [Outcome.PASSED]


def test_every_order_gets_fresh_random_state(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    # Forked children must not all replay the server's random sequence.
    trace = tmp_path / "trace.log"
    project = make_project(
        {
            "test_rand.py": """
                import os
                import random


                def test_draw():
                    with open(os.environ["OD_TRACE"], "a") as fh:
                        fh.write(f"{random.random()!r}\\n")
            """
        }
    )
    engine = make_engine(project, runner="fork", extra_env={"OD_TRACE": str(trace)})
    engine.run_many([["test_rand.py::test_draw"]] * 3)
    draws = trace.read_text().split()
    assert len(draws) == 3 and len(set(draws)) == 3


EMPTIES_TMP = {
    "tests/test_tmp.py": (
        "import os\nimport shutil\nimport tempfile\n\n"
        "def empty_the_temp_dir():\n"
        "    for name in os.listdir(tempfile.gettempdir()):\n"
        "        shutil.rmtree(os.path.join(tempfile.gettempdir(), name), ignore_errors=True)\n\n"
        "def test_empties_the_temp_dir(tmp_path):\n"
        "    (tmp_path / 'mine.txt').write_text('x')\n"
        "    empty_the_temp_dir()\n\n"
        "def test_empties_it_without_tmp_path():\n"
        "    empty_the_temp_dir()\n\n"
        "def test_writes_to_tmp_path(tmp_path):\n"
        "    (tmp_path / 'out.txt').write_text('y')\n"
    )
}
EMPTIES, EMPTIES_FIRST, WRITES = (
    f"tests/test_tmp.py::{t}"
    for t in ("test_empties_the_temp_dir", "test_empties_it_without_tmp_path",
              "test_writes_to_tmp_path")
)  # fmt: skip


@pytest.mark.parametrize("runner", RUNNERS)
def test_pytests_basetemp_lives_in_the_temp_dir_as_under_plain_pytest(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    """As with ``python -m pytest``, pytest makes its basetemp in TMPDIR when a test
    first asks for ``tmp_path``: emptying TMPDIR after that takes the next test's
    ``tmp_path`` with it, before that it does not; the next order starts afresh."""
    project = make_project(EMPTIES_TMP)
    engine = make_engine(project, runner=runner)
    polluted = engine.run([EMPTIES, WRITES])
    assert outcomes(polluted) == [Outcome.PASSED, Outcome.ERROR], polluted.results
    assert outcomes(engine.run([EMPTIES_FIRST, WRITES])) == [Outcome.PASSED, Outcome.PASSED]
    for _ in range(2):
        assert outcomes(engine.run([WRITES, EMPTIES])) == [Outcome.PASSED, Outcome.PASSED]
    assert outcomes(engine.run([WRITES])) == [Outcome.PASSED]
