from render import Renderer


def use_compact_style():
    Renderer.style = "compact"
