import logging

from shipit import logconf


def test_verbose_configuration():
    logconf.configure(verbose=True)
    assert logging.getLogger().level == logging.DEBUG
