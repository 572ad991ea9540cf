STATE = {"mode": "normal"}


def set_mode(mode):
    STATE["mode"] = mode


def write(key, value, store):
    if STATE["mode"] != "normal":
        raise RuntimeError(f"store is {STATE['mode']}")
    store[key] = value
