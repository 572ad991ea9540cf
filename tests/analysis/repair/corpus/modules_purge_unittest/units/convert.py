from units.quantity import Quantity

FACTORS = {("km", "m"): 1000, ("m", "cm"): 100}


def convert(quantity, unit):
    if not isinstance(quantity, Quantity):
        raise TypeError(f"not a Quantity: {quantity!r}")
    return Quantity(quantity.value * FACTORS[quantity.unit, unit], unit)
