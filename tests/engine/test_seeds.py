"""Which global generators a suite seeded while collected (:mod:`orderdep.engine.seeds`)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from orderdep.engine.seeds import SeedWatch, enter_child


@pytest.fixture
def watch() -> Iterator[SeedWatch]:
    before = random.getstate()
    w = SeedWatch()
    w.install()
    yield w
    w.finish()
    random.setstate(before)


def test_a_fixed_seed_is_kept_and_the_state_after_it_restored(watch: SeedWatch) -> None:
    original = random.seed.__wrapped__  # type: ignore[attr-defined]
    random.seed(16)
    random.random()
    after_collection = random.getstate()
    states = watch.finish()
    assert random.seed is original  # the module is as it was
    assert watch.seeded["random"] and states["random"] == after_collection
    random.random()
    enter_child(states)
    assert random.getstate() == after_collection


@pytest.mark.parametrize("last", ["seed()", "seed(None)", "seed(a=None)"])
def test_a_seed_from_the_os_last_means_reseed(watch: SeedWatch, last: str) -> None:
    random.seed(3)
    eval(f"random.{last}")
    states = watch.finish()
    assert not watch.seeded["random"] and "random" not in states
    enter_child(states)  # reseeded from the OS: not the state collection left
    assert random.getstate() != states.get("random")


def test_setstate_and_names_imported_while_watching_count(watch: SeedWatch) -> None:
    from random import setstate

    setstate(random.Random(5).getstate())
    assert watch.seeded["random"]


def test_numpy_imported_after_the_watch_started_is_watched_too() -> None:
    pytest.importorskip("numpy")
    script = textwrap.dedent(
        """
        import sys
        from orderdep.engine.seeds import SeedWatch, enter_child

        watch = SeedWatch()
        watch.install()
        assert "numpy" not in sys.modules
        import numpy as np
        np.random.seed(4135157)
        np.random.rand()
        states = watch.finish()
        assert watch.seeded["numpy"], watch.seeded
        expected = np.random.rand()
        np.random.rand()
        enter_child(states)
        assert np.random.rand() == expected
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
