"""A small API client: requests carry a token once one is set."""


class Client:
    def __init__(self, base="https://api.example.org"):
        self.base = base
        self.token = None

    def set_token(self, token):
        self.token = token

    def request(self, method, path, headers={}):  # noqa: B006 (the shape under test)
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.setdefault("Accept", "application/json")
        return {"method": method, "url": self.base + path, "headers": headers}
