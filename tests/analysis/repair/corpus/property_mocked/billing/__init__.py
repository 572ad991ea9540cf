"""Invoices and their totals."""


class Invoice:
    def __init__(self, lines):
        self.lines = list(lines)

    @property
    def total(self):
        return sum(self.lines)

    def due(self):
        return self.total > 0
