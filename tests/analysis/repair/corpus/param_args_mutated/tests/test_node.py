import pytest

ARGS = [
    ({"path": None}, "path=None owner=None"),
    ({"path": "/etc/file"}, "path=/etc/file owner=None"),
]


class Node:
    def __init__(self, atts):
        self.atts = atts  # kept, not copied
        self.atts.setdefault("owner", None)

    def take(self, owner):
        self.atts["owner"] = owner


@pytest.mark.parametrize(("atts", "expected"), ARGS)
def test_repr(atts, expected):
    node = Node(atts)
    assert f"path={node.atts['path']} owner={node.atts['owner']}" == expected


@pytest.mark.parametrize(("atts", "expected"), ARGS)
def test_take(atts, expected):
    node = Node(atts)
    node.take("root")
    assert node.atts["owner"] == "root"
