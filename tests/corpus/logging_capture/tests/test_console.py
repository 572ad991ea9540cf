import os
import subprocess
import sys

from notify.console import console


def test_console_stream_is_current_stderr():
    assert console.stream is sys.stderr


def test_console_warn():
    assert console.warn("disk almost full") == len("warning: disk almost full\n")


def test_capsys_sees_print(capsys):
    print("hello")
    sys.stderr.write("oops\n")
    assert capsys.readouterr() == ("hello\n", "oops\n")


def test_capsys_misses_saved_stream(capsys):
    console.warn("bypass")
    assert capsys.readouterr().err == ""


def test_capfd_sees_child_process(capfd):
    subprocess.run([sys.executable, "-c", "print('from child')"], check=True)
    os.write(2, b"raw fd 2\n")
    out, err = capfd.readouterr()
    assert out == "from child\n"
    assert err == "raw fd 2\n"


def test_late_console_under_capsys(capsys):
    from notify import late

    late.console.warn("first")
    assert "warning: first" in capsys.readouterr().err


def test_late_console_without_capture():
    from notify import late

    assert late.console.warn("later") > 0
