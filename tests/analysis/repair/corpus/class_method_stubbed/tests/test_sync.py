import sync


def test_count_reads_the_backend():
    assert sync.Source().count() == 2


def test_count_of_an_empty_backend():
    sync.Source.fetch = lambda self: []
    assert sync.Source().count() == 0


def test_push_wires_the_target():
    sync.wire(sync.Target)
    assert sync.Target().push(["a"]) == [{"title": "a"}]


def test_push_two_tasks():
    assert sync.Target().push(["a", "b"]) == [{"title": "a"}, {"title": "b"}]
