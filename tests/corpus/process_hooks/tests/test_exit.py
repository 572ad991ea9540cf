import atexit

from daemon import lifecycle


def test_register_exit_handler():
    lifecycle.on_exit("test")
    assert lifecycle.REGISTERED == ["test"]


def test_no_handlers_registered_yet():
    assert lifecycle.REGISTERED == []


def test_unregister_import_handler_is_possible():
    # atexit.unregister removes every registration of the function
    atexit.unregister(lifecycle.write_marker)
    atexit.register(lifecycle.write_marker, "import")
