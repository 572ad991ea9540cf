import logging

import shipit


def test_ship_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="shipit"):
        assert shipit.ship("box") == "shipped box"
    assert "shipping box" in caplog.text
