from app import config


def test_configure():
    config.SETTINGS["dsn"] = "sqlite://"
    assert config.SETTINGS
