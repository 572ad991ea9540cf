import json


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def add(path, text):
    items = load(path)
    items.append(text)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(items, f)
