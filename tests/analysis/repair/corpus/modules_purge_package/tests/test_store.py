from toolbox import store
from toolbox.records import Record


def test_round_trip():
    data = store.save(name="ada", age=36)
    assert store.load(data) == Record(name="ada", age=36)


def test_load_checks_the_type():
    data = store.save(name="bob")
    assert isinstance(store.load(data), Record)
