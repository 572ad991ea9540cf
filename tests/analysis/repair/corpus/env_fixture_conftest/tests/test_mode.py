import netclient


def test_offline_mode(offline):
    assert netclient.mode() == "offline"


def test_online_by_default():
    assert netclient.mode() == "online"
