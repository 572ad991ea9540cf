import pytest

import kv


def test_writes_refused_in_maintenance(maintenance):
    with pytest.raises(RuntimeError):
        kv.write("a", 1, {})


def test_write():
    store = {}
    kv.write("a", 1, store)
    assert store == {"a": 1}
