"""Settings read from the environment once, at import."""

import os


class Settings:
    def __init__(self) -> None:
        self.retries = int(os.environ.get("APP_RETRIES", "3"))
        self.timeout = float(os.environ.get("APP_TIMEOUT", "2.5"))


settings = Settings()
