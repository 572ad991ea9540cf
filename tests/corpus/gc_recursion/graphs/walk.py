def nest(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def depth_of(value: list) -> int:
    """Recursive on purpose: one Python frame per level."""
    return 1 + depth_of(value[0]) if value else 0


def frames_until_recursion_error() -> int:
    def down(n: int) -> int:
        try:
            return down(n + 1)
        except RecursionError:
            return n

    return down(0)
