from shapes import KINDS


class Square:
    def __init__(self, size):
        self.area = size * size


KINDS["square"] = Square
