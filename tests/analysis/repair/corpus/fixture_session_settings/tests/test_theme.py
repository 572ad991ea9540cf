def test_default_theme(settings):
    assert settings["theme"] == "light"


def test_big_pages(settings):
    settings["page_size"] = 100
    assert settings["page_size"] == 100
