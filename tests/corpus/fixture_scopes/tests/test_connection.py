import json
import os

import pytest

import kvstore


def test_read_seed(connection):
    assert connection.get("users") == ["ann", "bob"]


def test_session_env():
    assert os.environ["KVSTORE_MODE"] == "test"


def test_enter_maintenance(connection):
    connection.maintenance = True  # the fixture's teardown leaves the store in maintenance


def test_store_closed_between_tests():
    assert kvstore.STATE["mode"] == "closed"


def test_add_user_to_seed(seed_file):
    data = json.loads(seed_file.read_text(encoding="utf-8"))
    data["users"].append("cyd")
    seed_file.write_text(json.dumps(data), encoding="utf-8")
    assert len(data["users"]) == 3


def test_module_cache_starts_empty(module_cache):
    assert module_cache == {"hits": 0, "keys": []}


def test_module_cache_is_filled(module_cache):
    module_cache["hits"] += 1
    module_cache["keys"].append("users")
    assert module_cache["hits"] == 1


class TestClassScope:
    def test_first(self, class_log):
        class_log.append("first")
        assert class_log == ["first"]

    def test_second(self, class_log):
        class_log.append("second")
        assert class_log == ["first", "second"]


@pytest.fixture
def broken_when_maintenance():
    if kvstore.STATE["mode"] == "maintenance":
        raise RuntimeError("cannot set up during maintenance")
    return True


def test_setup_fails_in_maintenance(broken_when_maintenance):
    assert broken_when_maintenance
