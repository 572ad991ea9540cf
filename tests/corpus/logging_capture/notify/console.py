import sys


class Console:
    def __init__(self) -> None:
        self.stream = sys.stderr  # kept for the life of the process

    def warn(self, text: str) -> int:
        line = f"warning: {text}\n"
        self.stream.write(line)
        self.stream.flush()
        return len(line)


def make_console() -> Console:
    return Console()


console = make_console()
