class Quantity:
    def __init__(self, value, unit):
        self.value, self.unit = value, unit

    def __eq__(self, other):
        return isinstance(other, Quantity) and (self.value, self.unit) == (other.value, other.unit)
