"""A web application object as frameworks make them: its configuration is a dict, and
it holds a proxy to the request context that cannot be read outside a request."""


class _RequestProxy:
    def __getattribute__(self, name):
        raise RuntimeError("Working outside of request context.")


class Portal:
    def __init__(self):
        self.config = {"PAGE_TITLE": "Portal", "THEME": "light"}
        self.request = _RequestProxy()

    def render_index(self):
        return f"<title>{self.config['PAGE_TITLE']}</title>"


app = Portal()
