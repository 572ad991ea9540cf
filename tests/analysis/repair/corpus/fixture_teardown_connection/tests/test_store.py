import store


def test_raw_query(connection):
    assert connection.query("select 1") == ["select 1"]


def test_count_rows():
    assert store.count_rows("users") == 1
