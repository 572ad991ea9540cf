"""Flags the time steps of a radar profile that hold rain."""


def find_rain(z, threshold=0.05):
    return (z > threshold).any(axis=1).astype(float)
