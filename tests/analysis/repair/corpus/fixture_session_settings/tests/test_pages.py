import app


def test_page_count(settings):
    assert app.page_count(settings, 45) == 3
