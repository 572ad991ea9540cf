"""Collects request/response pairs while tests run and renders them as a document."""


class Recorder:
    def __init__(self):
        self.clear()
        self.separator = "="

    def clear(self):
        self.entries = []

    def record(self, title, status):
        self.entries.append(
            {"title": title, "underline": self.separator * len(title), "status": status}
        )

    def render(self):
        return "\n\n".join(
            "{title}\n{underline}\n{status}".format(**entry) for entry in self.entries
        )


recorder = Recorder()
