"""Ticket numbers drawn in sequence from a small file-backed store."""

import json
import os


class TicketBook:
    def __init__(self, path, first=100):
        self.path = path
        if not os.path.exists(path):
            with open(path, "w") as fh:
                json.dump({"next": first}, fh)

    def draw(self):
        with open(self.path) as fh:
            state = json.load(fh)
        number = state["next"]
        state["next"] = number + 1
        with open(self.path, "w") as fh:
            json.dump(state, fh)
        return number
