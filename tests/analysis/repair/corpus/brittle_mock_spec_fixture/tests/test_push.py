from unittest import mock

import pytest

import backend


@pytest.fixture
def target():
    spy = mock.Mock(backend.Target, wraps=backend.Target())
    backend.wire(backend.Target)
    return spy


def test_target_is_wired(target):
    assert backend.Target.make_fn is backend.make_fn


def test_push_uses_the_factory(target):
    target.make_fn("a")
    target.make_fn.assert_called_once_with("a")
