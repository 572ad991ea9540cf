import os
import signal
import time

import pytest

from daemon import signals


def test_reload_handler_installed_at_import():
    assert signal.getsignal(signal.SIGUSR2) is signals.reload_config


def test_sigusr2_reloads():
    signal.raise_signal(signal.SIGUSR2)
    assert signals.RELOADS == [signal.SIGUSR2]


def test_ignore_reloads_during_maintenance():
    signal.signal(signal.SIGUSR2, signal.SIG_IGN)  # never put back
    os.kill(os.getpid(), signal.SIGUSR2)


def test_sigusr1_handler():
    received = []
    signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    os.kill(os.getpid(), signal.SIGUSR1)
    assert received == [signal.SIGUSR1]


def test_sigusr1_default():
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL


def test_alarm_timeout():
    def on_alarm(signum, frame):
        raise TimeoutError("operation timed out")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    with pytest.raises(TimeoutError, match="timed out"):
        time.sleep(5)


def test_sigalrm_default():
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL


def test_standard_handlers():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_DFL
