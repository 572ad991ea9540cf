import io
import logging
import sys

import notify
from notify.mailer import send


def test_send_logs_info(caplog):
    caplog.set_level(logging.INFO)
    send("ann@example.org")
    assert "sent to ann@example.org" in caplog.text


def test_warning_record(caplog):
    caplog.set_level(logging.INFO)
    send("bob")
    assert [r.levelname for r in caplog.records] == ["INFO", "WARNING"]


def test_quiet_mode():
    # a "quiet" switch that is never switched back
    logging.getLogger("notify").setLevel(logging.WARNING)
    assert not logging.getLogger("notify").isEnabledFor(logging.INFO)


def test_basicconfig_at_import_was_a_no_op():
    # pytest's own log handlers were on the root logger when notify was imported
    root = logging.getLogger()
    assert root.level == logging.WARNING
    assert [h for h in root.handlers if type(h) is logging.StreamHandler] == []


def test_handler_keeps_import_time_stderr():
    assert notify.stderr_handler.stream is sys.stderr


def test_reconfigure_logging():
    logging.basicConfig(force=True, stream=io.StringIO(), level=logging.DEBUG)
    assert logging.getLogger().level == logging.DEBUG
