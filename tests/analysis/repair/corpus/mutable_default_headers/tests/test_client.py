from apiclient import Client


def test_request_without_token_sends_no_authorization():
    sent = Client().request("GET", "/builds")
    assert "Authorization" not in sent["headers"]


def test_request_sends_json_accept_header():
    sent = Client().request("GET", "/builds")
    assert sent["headers"] == {"Accept": "application/json"}


def test_request_with_token_sends_authorization():
    client = Client()
    client.set_token("ABCDEF1234")
    sent = client.request("GET", "/builds")
    assert sent["headers"]["Authorization"] == "Bearer ABCDEF1234"
