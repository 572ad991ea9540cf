from helpers import use_compact_style

from render import Renderer


def test_compact():
    use_compact_style()
    assert Renderer().render("Hi") == "Hi"


def test_full():
    assert Renderer().render("Hi") == "== Hi =="
