from metrics import Series


def test_line_from_keyword_arguments():
    point = Series(name="cpu", fields=["user", "system"], user=1, system=2)
    assert point.line() == "cpu user=1,system=2 0"


def test_time_is_not_a_field():
    point = Series(name="mem", fields=["used", "time"], used=5, time=3)
    assert point.values == {"used": 5}
    assert point.line() == "mem used=5 3"
