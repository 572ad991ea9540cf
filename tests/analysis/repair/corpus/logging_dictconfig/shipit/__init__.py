"""Ships parcels and says so in its log."""

import logging

log = logging.getLogger("shipit")


def ship(parcel):
    log.warning("shipping %s", parcel)
    return f"shipped {parcel}"
