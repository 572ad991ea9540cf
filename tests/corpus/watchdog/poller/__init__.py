"""Polls a source until it is ready."""

import time

POLLS: list[float] = []


def wait_ready(source: dict[str, bool], interval: float = 0.05, attempts: int = 6) -> bool:
    for _ in range(attempts):
        POLLS.append(time.monotonic())
        if source.get("ready"):
            return True
        time.sleep(interval)
    return False
