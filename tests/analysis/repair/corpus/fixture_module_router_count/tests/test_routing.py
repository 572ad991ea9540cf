import pytest

import routing


@pytest.fixture(scope="module")
def router():
    return routing.Router()


class Users:
    def get(self, user_id):
        return user_id


def test_register_function(router):
    def index():
        return "index"

    router.register(index, "/")
    assert len(router) == 1


def test_register_class(router):
    router.register(Users, "/users")
    assert len(router) == 2
