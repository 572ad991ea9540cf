"""The command line's logging set-up."""

import logging.config


def configure(verbose=False):
    logging.config.dictConfig(
        {
            "version": 1,
            "formatters": {"plain": {"format": "%(levelname)s %(message)s"}},
            "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
            "root": {"level": "DEBUG" if verbose else "INFO", "handlers": ["console"]},
        }
    )
