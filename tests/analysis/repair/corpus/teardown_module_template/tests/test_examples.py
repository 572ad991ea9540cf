from reportgen import reporter


def teardown_module(module):
    # the examples are written up with their own template once they have all run
    reporter.template = "examples"
    reporter.flush()


def test_example_add():
    reporter.add("GET /")
    assert reporter.lines[-1] == "GET /"


def test_example_header():
    assert reporter.header().startswith("== ")
