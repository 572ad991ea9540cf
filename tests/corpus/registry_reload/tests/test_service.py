from exporters import service


def test_service_starts_empty():
    assert service.get_instance().jobs == []


def test_submit_job():
    assert service.get_instance().submit("report") == 1


def test_same_instance_everywhere():
    first = service.get_instance()
    assert service.get_instance() is first
    assert first.serial == 1
