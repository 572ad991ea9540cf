from poller import POLLS, wait_ready


def test_ready_at_once():
    assert wait_ready({"ready": True})
    assert len(POLLS) == 1


def test_never_ready():
    assert not wait_ready({"ready": False})


def test_ready_later():
    source = {"ready": False}
    assert not wait_ready(source, attempts=2)
    source["ready"] = True
    assert wait_ready(source)
