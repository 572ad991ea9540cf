import gc

from graphs import nodes


def test_root_alive():
    assert nodes.ROOT_REF() is not None
    assert nodes.ROOT.peer.peer is nodes.ROOT


def test_drop_root():
    nodes.ROOT = None
    gc.collect()
    assert nodes.ROOT_REF() is None
    assert nodes.RELEASED == ["root"]


def test_gc_enabled():
    assert gc.isenabled()


def test_benchmark_without_gc():
    gc.disable()  # "for stable timings"; never re-enabled
    assert sum(range(1000)) == 499500


def test_no_uncollectable_garbage():
    gc.collect()
    assert gc.garbage == []
