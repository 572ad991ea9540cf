"""Collects lines while tests run and writes them as a report with a template."""


class Reporter:
    def __init__(self):
        self.template = "default"
        self.lines = []

    def add(self, line):
        self.lines.append(line)

    def header(self):
        return f"== {self.template} =="

    def flush(self):
        text = "\n".join([self.header(), *self.lines])
        self.lines = []
        return text


reporter = Reporter()
