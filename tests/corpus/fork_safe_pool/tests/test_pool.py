import dbpool


def test_pool_made_at_import_is_used():
    assert dbpool.get_pool() is dbpool.POOL


def test_connect():
    assert dbpool.get_pool().connect("db") == "db#1"


def test_connections_go_through_the_default_pool():
    dbpool.get_pool().connect("cache")
    assert dbpool.POOL.connections[-1:] == ["cache"]


def test_no_fork_hooks_ran():
    assert dbpool.FORK_RESETS == []
