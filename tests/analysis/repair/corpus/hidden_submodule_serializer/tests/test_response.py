import json

from jsonapi import response, set_serializer


def test_body_is_json():
    assert json.loads(response(200, name="tea")["body"]) == {"name": "tea"}


def test_custom_serializer():
    set_serializer(lambda fields: "dummy")
    assert response(200, name="tea") == {"status": 200, "body": "dummy"}
