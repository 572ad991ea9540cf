"""Items loaded once per session by whichever test loads them first."""

ITEMS: dict[str, int] = {}


def load() -> None:
    ITEMS["apples"] = 3
