import signal

RELOADS: list[int] = []


def reload_config(signum, frame):
    RELOADS.append(signum)


signal.signal(signal.SIGUSR2, reload_config)  # installed at import
