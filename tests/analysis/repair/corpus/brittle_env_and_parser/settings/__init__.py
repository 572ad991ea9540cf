import os
from configparser import ConfigParser


class Settings:
    FILE_VARIABLE = "APP_SETTINGS_FILE"
    parser = ConfigParser()

    @classmethod
    def load(cls):
        cls.parser.read(os.environ.get(cls.FILE_VARIABLE))  # None: TypeError
        return {key: value for key, value in cls.parser.defaults().items()}
