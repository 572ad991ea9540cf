import configparser
import os
import unittest

from settings import Settings

PATH = "app-settings.ini"


class DefaultsTest(unittest.TestCase):
    def test_defaults_without_a_file(self):
        if os.path.exists(PATH):
            os.remove(PATH)
        self.assertEqual(Settings.load(), {"timeout": "30"})


class FileTest(unittest.TestCase):
    def write(self, **values):
        os.environ[Settings.FILE_VARIABLE] = PATH
        config = configparser.ConfigParser()
        for key, value in values.items():
            config.set("DEFAULT", key, value)
        with open(PATH, "w") as out:
            config.write(out)

    def test_reads_the_file(self):
        self.write(timeout="30")
        self.assertEqual(Settings.load()["timeout"], "30")
