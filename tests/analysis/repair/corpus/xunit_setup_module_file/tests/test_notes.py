import json
import os

import notes

PATH = os.path.join(os.path.dirname(__file__), "notes.json")


def setup_module():
    with open(PATH, "w", encoding="utf-8") as f:
        json.dump(["buy milk"], f)


def teardown_module():
    os.remove(PATH)


def test_first_note_only():
    assert notes.load(PATH) == ["buy milk"]


def test_add_note():
    notes.add(PATH, "call Bob")
    assert notes.load(PATH)[-1] == "call Bob"
