import os


def mode():
    return "offline" if os.environ.get("NETCLIENT_OFFLINE") == "1" else "online"
