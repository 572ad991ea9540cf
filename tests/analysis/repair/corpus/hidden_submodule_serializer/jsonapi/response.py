import json

__all__ = ["response", "set_serializer"]

SERIALIZE = json.dumps


def set_serializer(function):
    global SERIALIZE
    SERIALIZE = function


def response(status, **fields):
    return {"status": status, "body": SERIALIZE(fields)}
