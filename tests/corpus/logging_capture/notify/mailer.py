from notify import logger


def send(to: str) -> bool:
    logger.info("sent to %s", to)
    if "@" not in to:
        logger.warning("suspicious address %s", to)
    return True
