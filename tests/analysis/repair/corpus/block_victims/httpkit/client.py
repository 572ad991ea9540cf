"""A tiny HTTP client whose errors carry the message of the JSON body."""

import json


class ApiError(Exception):
    """Any error answer."""


class BadRequest(ApiError):
    pass


class Denied(ApiError):
    pass


class NotFound(ApiError):
    pass


KINDS = {400: BadRequest, 401: Denied, 404: NotFound}


class Client:
    def __init__(self, session):
        self.session = session

    def get(self, url):
        answer = self.session.get(url)
        if answer.ok:
            return answer
        try:
            body = json.loads(answer.content)
        except (TypeError, ValueError):
            body = {}
        raise KINDS.get(answer.status_code, ApiError)(body.get("message", "no message"))
