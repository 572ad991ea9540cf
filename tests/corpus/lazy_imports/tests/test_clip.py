import subprocess
import sys

import clip


def test_import_does_not_load_ctypes():
    assert "ctypes" not in sys.modules


def test_copy():
    assert clip.copy("hello") == b"hello"


def test_import_does_not_load_ctypes_in_a_fresh_interpreter():
    code = "import sys, clip; print('ctypes' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout == "False\n"
