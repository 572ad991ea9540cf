"""Confirmation guided by data dependencies (``detect --guided``): the writers of what a
suspect read are tried before group testing over every test before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdep.analysis.confirm import OrderRunner, RunLog
from orderdep.analysis.confirm_chunks import confirm_in_chunks
from orderdep.analysis.guided import WriterHints
from orderdep.analysis.pradet.datadeps import CROWDED, TestAccess
from orderdep.core.odmodel import ODSpec
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor


def _access(
    i: int, test: str, reads: frozenset[str] = frozenset(), writes: frozenset[str] = frozenset()
) -> TestAccess:
    return TestAccess(i, test, frozenset(reads), frozenset(writes))


def test_a_hint_is_the_writers_before_the_test_of_what_it_read() -> None:
    seq = [
        _access(0, "a", writes=frozenset({"py:app.LIMIT"})),
        _access(1, "b", writes=frozenset({"env:HOME"})),
        _access(2, "c", writes=frozenset({"py:app.LIMIT", "file:data/x.json"})),
        _access(3, "v", reads=frozenset({"py:app.LIMIT", "file:data/*"})),
        _access(4, "w", writes=frozenset({"py:app.LIMIT"})),
    ]
    hints = WriterHints.from_accesses(seq)
    assert hints.hint("v", ["a", "b", "c", "v", "w"]) == ["a", "c"]
    assert hints.hint("v", ["w", "b", "v"]) == ["w"]  # any order: what ran before it
    assert hints.hint("v", ["a", "c", "v"]) is None  # every test before it: no help
    assert hints.hint("v", ["b", "v"]) is None and hints.hint("x", ["a", "x"]) is None


def test_a_root_every_test_writes_is_left_out_when_others_were_read() -> None:
    many = [_access(i, f"t{i}", writes=frozenset({"py:counter"})) for i in range(CROWDED + 5)]
    seq = [*many, _access(99, "p", writes=frozenset({"py:cache"}))]
    seq.append(_access(100, "v", reads=frozenset({"py:counter", "py:cache"})))
    order = [a.test for a in seq]
    assert WriterHints.from_accesses(seq).hint("v", order) == ["p"]
    only_counter = [*seq[:-1], _access(100, "v", reads=frozenset({"py:counter"}))]
    assert WriterHints.from_accesses(only_counter).hint("v", order) == [a.test for a in many]


def test_a_guided_confirmation_runs_fewer_orders_and_finds_the_same_polluter() -> None:
    fillers = [f"t{i:03d}" for i in range(200)]
    ids = [*fillers[:50], "p", *fillers[50:], "v"]
    model = ModelExecutor(Suite.from_ids(ids), [ODSpec("v", "victim", polluters=["p"])])
    seq = [
        _access(i, t, writes=frozenset({"py:app.REGISTRY"})) for i, t in enumerate(ids) if t == "p"
    ]
    seq += [
        _access(1, "t007", writes=frozenset({"py:app.REGISTRY"}))
    ]  # a writer that changes nothing
    seq += [_access(len(ids), "v", reads=frozenset({"py:app.REGISTRY"}))]
    guide = WriterHints.from_accesses(seq).hint
    results = {}
    for name, given in (("plain", None), ("guided", guide)):
        runner = OrderRunner(model, RunLog(None), 1)
        verdicts, pending, stop = confirm_in_chunks(runner, [model.run(ids)], guide=given)
        assert stop is None and pending == []
        (finding,) = verdicts.od
        results[name] = (runner.orders_run, finding.failing_order)
    assert results["guided"][1] == results["plain"][1] == ["p", "v"]
    assert results["guided"][0] < results["plain"][0], results


def _two_test_project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("LIMIT = 10\n")
    (root / "tests/test_a.py").write_text("import app\n\ndef test_sets():\n    app.LIMIT = 3\n")
    (root / "tests/test_b.py").write_text(
        "import app\n\ndef test_reads():\n    assert app.LIMIT == 10\n"
    )
    return root


def test_detect_guided_on_a_project_says_what_it_collected(tmp_path: Path) -> None:
    import contextlib
    import io

    from orderdep.shells.cli import main

    root = _two_test_project(tmp_path / "p")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["detect", str(root), "--guided", "--seed", "1", "--budget", "120"])
    assert code == 1, err.getvalue()
    said = err.getvalue()
    assert "--guided: the reverse of the original order (2 tests) run under the state" in said
    assert "--guided: 2 tests read, 1 roots written" in said


def test_the_probed_runs_are_search_orders(tmp_path: Path) -> None:
    """The polluter runs after its victim in the original order: the probed reverse is
    the only order of the search, and the victim is found from it (confirmed without the
    probe)."""
    import contextlib
    import io
    import json

    from orderdep.shells.cli import main

    root = _two_test_project(tmp_path / "p")
    (root / "tests/test_a.py").rename(root / "tests/test_z.py")  # the polluter runs last
    err = io.StringIO()
    argv = ["detect", str(root), "--guided", "--seed", "1", "--max-orders", "2", "--jobs", "1"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    assert code == 1, err.getvalue()
    report = json.loads((root / ".orderdep" / "report.json").read_text())
    assert report["stats"]["strategies"][:2] == ["original", "probed"], report["stats"]
    # the probed order is one of the search's orders and executions
    assert report["stats"]["search_orders"] == 2, report["stats"]
    assert report["stats"]["search_executions"] == 4, report["stats"]
    (finding,) = report["od_tests"]
    assert finding["test"] == "tests/test_b.py::test_reads"
    assert finding["failing_order"] == ["tests/test_z.py::test_sets", "tests/test_b.py::test_reads"]


def test_no_probed_run_when_it_would_not_fit_its_share_of_the_budget() -> None:
    from orderdep.analysis.guided import PROBE_SHARE, collect_hints

    said: list[str] = []
    model = ModelExecutor(Suite.from_ids(["a", "b"]), [])
    # the order took 10 s unprobed; PROBE_SHARE of 15 s left cannot hold its probed run
    assert collect_hints(model, ["a", "b"], 15.0, said.append, order_seconds=10.0) is None
    assert said == [
        "orderdep: --guided: no probed run: it would take about 12 s, more than the "
        f"{15 * PROBE_SHARE:.0f} s of the budget it may use (a larger --budget leaves it room); "
        "confirming without data dependencies"
    ]


def test_big_suites_are_guided_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib
    import io

    from orderdep.analysis import detect as detect_module
    from orderdep.shells.cli import main

    root = _two_test_project(tmp_path / "p")
    monkeypatch.setattr(detect_module, "GUIDED_MIN_TESTS", 2)  # this suite counts as big
    monkeypatch.setattr(detect_module, "GUIDED_MIN_SECONDS", 0.0)  # and as slow
    for extra, probed in (([], True), (["--no-guided"], False)):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["detect", str(root), "--seed", "1", "--budget", "120", *extra])
        assert code == 1, err.getvalue()
        assert ("run under the state probe" in err.getvalue()) is probed, err.getvalue()


def test_a_big_suite_of_fast_orders_is_not_guided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many tests, but one order takes less than GUIDED_MIN_SECONDS: no probed orders."""
    import contextlib
    import io

    from orderdep.analysis import detect as detect_module
    from orderdep.shells.cli import main

    root = _two_test_project(tmp_path / "p")
    monkeypatch.setattr(detect_module, "GUIDED_MIN_TESTS", 2)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["detect", str(root), "--seed", "1", "--budget", "60"])
    assert code == 1, err.getvalue()
    assert "run under the state probe" not in err.getvalue(), err.getvalue()
