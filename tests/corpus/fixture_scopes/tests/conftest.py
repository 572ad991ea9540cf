import json
import os

import pytest

import kvstore

SESSION_EVENTS: list[str] = []


@pytest.fixture(scope="session")
def seed_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("seed") / "seed.json"
    path.write_text(json.dumps({"users": ["ann", "bob"], "limit": 10}), encoding="utf-8")
    return path


@pytest.fixture(scope="session", autouse=True)
def store_mode():
    os.environ["KVSTORE_MODE"] = "test"
    SESSION_EVENTS.append("session-up")
    yield
    os.environ.pop("KVSTORE_MODE", None)


@pytest.fixture(scope="session", autouse=True)
def no_maintenance_left_behind():
    yield
    # runs after the session's last test; an error here is reported on that test
    if kvstore.STATE["mode"] == "maintenance":
        raise RuntimeError("the session ended with the store in maintenance")


@pytest.fixture(autouse=True)
def trace_tests(request):
    SESSION_EVENTS.append(request.node.name)
    yield


@pytest.fixture
def connection(seed_file):
    conn = kvstore.Connection(seed_file)
    yield conn
    # teardown leaves the store in maintenance mode when a test asked for it
    conn.close(maintenance=getattr(conn, "maintenance", False))


@pytest.fixture(scope="module")
def module_cache():
    return {"hits": 0, "keys": []}


@pytest.fixture(scope="class")
def class_log():
    return []
