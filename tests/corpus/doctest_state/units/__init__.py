"""Unit conversions, documented (and tested) with doctests."""
