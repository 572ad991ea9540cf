"""Length conversions.

>>> to_cm(2, "in")
5.08
"""

FACTORS = {"in": 2.54}
PRECISION = 2


def to_cm(value, unit):
    """Convert ``value`` in ``unit`` to centimetres.

    >>> to_cm(1, "yd")
    Traceback (most recent call last):
    ...
    KeyError: 'yd'
    """
    return round(value * FACTORS[unit], 6)


def register_unit(name, factor):
    """Teach the converter a new unit (for the rest of the process).

    >>> register_unit("ft", 30.48)
    >>> sorted(FACTORS)
    ['ft', 'in']
    """
    FACTORS[name] = factor


def units():
    """The known units.

    >>> units()
    ['in']
    """
    return sorted(FACTORS)


def set_precision(digits):
    """Change how many digits ``fmt`` shows.

    >>> set_precision(4)
    >>> fmt(1 / 3)
    '0.3333'
    """
    global PRECISION
    PRECISION = digits


def fmt(value):
    """Format a length.

    >>> fmt(2 / 3)
    '0.67'
    >>> unit_label
    'cm'
    """
    return f"{value:.{PRECISION}f}"
