import threading

import jobs


def test_worker_alive():
    assert jobs.WORKER.is_alive()


def test_worker_thread_started_at_import():
    names = sorted(t.name for t in threading.enumerate())
    assert names == ["MainThread", "jobs-worker"]


def test_submit():
    assert jobs.submit(lambda: 6 * 7) == 42


def test_results_start_empty():
    assert jobs.RESULTS == []


def test_shutdown():
    jobs.shutdown()
    assert not jobs.WORKER.is_alive()
