from appcfg import client


def test_attempts_follow_the_settings(monkeypatch):
    from appcfg.settings import settings

    monkeypatch.setattr(settings, "retries", 7)
    assert client.attempts() == 8
