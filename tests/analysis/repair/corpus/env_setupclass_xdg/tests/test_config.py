import os
import unittest

import notes


class TestPortableConfig(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.environ["XDG_CONFIG_HOME"] = "/opt/notes/config"

    def test_config_under_xdg(self):
        self.assertEqual(notes.config_file(), "/opt/notes/config/notes/notes.ini")


class TestUserConfig(unittest.TestCase):
    def test_config_in_home(self):
        expected = os.path.expanduser("~/.config/notes/notes.ini")
        self.assertEqual(notes.config_file(), expected)
