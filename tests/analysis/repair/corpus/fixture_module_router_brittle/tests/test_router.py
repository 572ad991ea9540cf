import pytest

import routes


@pytest.fixture(scope="module")
def router():
    return routes.Router()


def index():
    return "index"


def test_add_index(router):
    router.add("/", index)
    assert len(router) == 1


def test_dispatch_index(router):
    assert router.dispatch("/") == "index"


def test_unknown_path(router):
    with pytest.raises(KeyError):
        router.dispatch("/nowhere")
