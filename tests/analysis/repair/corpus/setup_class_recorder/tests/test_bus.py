from events import Bus


class TestBus:
    @classmethod
    def setup_class(cls):
        cls.received = []

    def test_no_subscriber_no_call(self):
        Bus().publish("lost")
        assert self.received == []

    def test_publish_reaches_a_subscriber(self):
        bus = Bus()
        bus.subscribe(self.received.append)
        bus.publish("saved")
        assert self.received == ["saved"]


def test_subscribers_in_order():
    seen = []
    bus = Bus()
    bus.subscribe(lambda e: seen.append(("a", e)))
    bus.subscribe(lambda e: seen.append(("b", e)))
    bus.publish(1)
    assert seen == [("a", 1), ("b", 1)]
