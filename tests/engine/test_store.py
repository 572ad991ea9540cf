"""The SQLite results store and resuming a job from it."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.engine.store import Store, code_key, order_key

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter


def fake(order: list[str], outcome: Outcome = Outcome.PASSED, **kw: object) -> OrderResult:
    results = [TestResult(t, outcome, 0.25, "" if outcome.is_pass else "boom") for t in order]
    return OrderResult(list(order), results, runner="fork", wall_seconds=1.5, **kw)  # type: ignore[arg-type]


def test_order_key_depends_on_the_exact_sequence() -> None:
    assert order_key(["a", "b"]) == order_key(["a", "b"])
    keys = {order_key(o) for o in (["a", "b"], ["b", "a"], ["a"], ["a", "a", "b"], [])}
    assert len(keys) == 5


def test_code_key_follows_code_and_config_files_only(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a(): pass\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    first = code_key(tmp_path)
    for rel in (".orderdep/x.py", ".git/hook.py", "venv/lib/m.py", "node_modules/p/x.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / "data.txt").write_text("not code")
    assert code_key(tmp_path) == first
    (tmp_path / "test_a.py").write_text("def test_a(): assert 0\n")
    second = code_key(tmp_path)
    assert second != first
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    assert code_key(tmp_path) != second


def test_record_and_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db", code="c1")
    result = fake(["a", "b", "a"], Outcome.FAILED)
    rid = store.record(result, job="j", seed=7)
    assert rid == result.run_id and rid > 0
    (got,) = store.runs_of(["a", "b", "a"])
    assert got.order == ["a", "b", "a"]
    assert got.results == result.results
    assert (got.runner, got.wall_seconds, got.run_id) == ("fork", 1.5, rid)
    assert store.job_runs("j", ["a", "b", "a"])[0].results == result.results
    assert store.job_runs("other", ["a", "b", "a"]) == []
    assert store.runs_of(["a", "b"]) == []
    assert store.count() == 1
    store.close()

    again = Store(tmp_path / "r.db", code="c1")  # committed: visible to a new process
    assert [r.run_id for r in again.runs_of(["a", "b", "a"])] == [rid]
    assert Store(tmp_path / "r.db", code="c2").runs_of(["a", "b", "a"]) == []
    row = sqlite3.connect(tmp_path / "r.db").execute("SELECT seed, job FROM runs").fetchone()
    assert row == (7, "j")


def test_interrupted_and_probe_runs_are_no_evidence(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db", code="c")
    store.record(fake(["a"], interrupted=True), job="j")
    store.record(fake(["a"]), job="j", probe="orderdep.some_probe")
    assert store.count() == 2
    assert store.runs_of(["a"]) == [] and store.job_runs("j", ["a"]) == []
    store.record(fake(["a"]), job="j")
    assert len(store.runs_of(["a"])) == len(store.job_runs("j", ["a"])) == 1


def test_store_is_thread_safe(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db", code="c")

    def work(n: int) -> None:
        for i in range(20):
            store.record(fake([f"t{n}", f"t{i}"]), job="j")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count() == 80
    assert len(store.job_runs("j", ["t1", "t3"])) == 1


def test_for_project_lives_in_the_project(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a(): pass\n")
    store = Store.for_project(tmp_path)
    assert store.path == tmp_path / ".orderdep" / "results.db"
    assert store.code == code_key(tmp_path)
    assert store.path.is_file()
    assert Store.for_project(tmp_path).code == store.code  # the database is not code


# -- resuming a job on the real engine ------------------------------------------------

RESUME_FILES = {
    "test_r.py": """
        import os


        def _count():
            with open(os.environ["OD_TRACE"], "a") as fh:
                fh.write("ran\\n")


        def test_a():
            _count()


        def test_b():
            _count()
    """,
}
A, B = "test_r.py::test_a", "test_r.py::test_b"


def executions(trace: Path) -> int:
    return len(trace.read_text().splitlines()) if trace.exists() else 0


def test_a_restarted_job_reuses_its_finished_orders(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str, tmp_path: Path
) -> None:
    project = make_project(RESUME_FILES)
    trace = tmp_path / "trace.log"
    env = {"OD_TRACE": str(trace)}
    store = Store.for_project(project)

    first = make_engine(project, runner=runner, store=store, job="j", extra_env=env)
    done = first.run_many([[A, B], [B], [A, B]])
    assert first.orders_run == 3 and first.reused == 0 and store.count() == 3
    assert executions(trace) == 5
    first.close()

    # The same job again, with one more duplicate of [A, B]: only that one runs.
    second = make_engine(
        project, runner=runner, store=Store.for_project(project), job="j", extra_env=env
    )
    again = second.run_many([[A, B], [B], [A, B], [A, B]])
    assert second.reused == 3 and second.orders_run == 1
    assert executions(trace) == 7
    assert [r.run_id for r in again[:3]] == [r.run_id for r in done]
    assert [r.to_json()["results"] for r in again[:3]] == [r.to_json()["results"] for r in done]
    assert again[3].run_id not in {r.run_id for r in done}
    assert store.count() == 4

    # Another job name shares nothing.
    other = make_engine(project, runner=runner, store=store, job="other", extra_env=env)
    other.run([B])
    assert other.reused == 0 and executions(trace) == 8


def test_a_killed_job_resumes_from_what_it_recorded(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    project = make_project(RESUME_FILES)
    trace = tmp_path / "trace.log"
    store = Store.for_project(project)
    # What a run killed after its first order leaves behind (a recognisable fake result).
    store.record(fake([A, B], Outcome.FAILED), job="k")
    store.record(fake([B], interrupted=True), job="k")  # cut short: must run again

    engine = make_engine(
        project, runner="fork", store=store, job="k", extra_env={"OD_TRACE": str(trace)}
    )
    results = engine.run_many([[A, B], [B]])
    assert [r.outcome for r in results[0].results] == [Outcome.FAILED, Outcome.FAILED]
    assert [r.outcome for r in results[1].results] == [Outcome.PASSED]
    assert engine.reused == 1 and engine.orders_run == 1
    assert executions(trace) == 1


def test_changed_code_is_not_resumed(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    project = make_project(RESUME_FILES)
    Store.for_project(project).record(fake([A], Outcome.FAILED), job="j")
    test_file = project / "test_r.py"
    test_file.write_text(test_file.read_text() + "\n# edited\n")
    st = test_file.stat()
    os.utime(test_file, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    trace = tmp_path / "trace.log"
    engine = make_engine(
        project,
        runner="fork",
        store=Store.for_project(project),
        job="j",
        extra_env={"OD_TRACE": str(trace)},
    )
    assert [r.outcome for r in engine.run([A]).results] == [Outcome.PASSED]
    assert engine.reused == 0 and executions(trace) == 1


def test_without_a_job_everything_runs_and_is_recorded(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    project = make_project(RESUME_FILES)
    trace = tmp_path / "trace.log"
    store = Store.for_project(project)
    for _ in range(2):
        engine = make_engine(
            project, runner="fork", store=store, extra_env={"OD_TRACE": str(trace)}
        )
        engine.run([A])
        assert engine.reused == 0
    assert executions(trace) == 2
    assert len(store.runs_of([A])) == 2


def test_parallel_resume_counts_duplicates_separately(
    make_project: ProjectWriter, make_engine: EngineFactory, tmp_path: Path
) -> None:
    jobs = 2
    project = make_project(RESUME_FILES)
    trace = tmp_path / "trace.log"
    store = Store.for_project(project)
    env = {"OD_TRACE": str(trace)}
    orders = [[A], [A], [B], [A]]
    first = make_engine(project, runner="fork", jobs=jobs, store=store, job="p", extra_env=env)
    first.run_many(orders[:2])
    second = make_engine(project, runner="fork", jobs=jobs, store=store, job="p", extra_env=env)
    second.run_many(orders)
    assert (second.reused, second.orders_run) == (2, 2)
    assert executions(trace) == 4
    assert len(store.job_runs("p", [A])) == 3


def test_recorded_run_reads_the_latest_complete_run_of_an_order_by_a_runner(
    tmp_path: Path,
) -> None:
    from orderdep.engine.store import recorded_run

    (tmp_path / "test_a.py").write_text("def test_a(): pass\n")
    order = ["test_a.py::test_a", "test_a.py::test_b"]
    store = Store.for_project(tmp_path)
    store.record(fake(order, Outcome.FAILED))
    store.record(fake(order))  # the latest fork run
    other = fake(order, Outcome.FAILED)
    store.record(dataclasses.replace(other, runner="subprocess"))
    store.record(fake(order[:1]))
    store.close()
    path = tmp_path / ".orderdep" / "results.db"
    run = recorded_run(path, tmp_path, order, "fork")
    assert run is not None and run.order == order and run.runner == "fork"
    assert [r.outcome for r in run.results] == [Outcome.PASSED, Outcome.PASSED]
    assert run.wall_seconds == 1.5
    subprocess_run = recorded_run(path, tmp_path, order, "subprocess")
    assert subprocess_run is not None and subprocess_run.results[0].outcome is Outcome.FAILED
    assert recorded_run(path, tmp_path, order[::-1], "fork") is None
    assert recorded_run(tmp_path / "missing.db", tmp_path, order, "fork") is None
    (tmp_path / "test_a.py").write_text("def test_a(): assert 0\n")  # another code version
    assert recorded_run(path, tmp_path, order, "fork") is None
