import os
import unittest

from appcfg import paths


class TestCustomCache(unittest.TestCase):
    def setUp(self):
        os.environ["XDG_CACHE_HOME"] = "/srv/cache"

    def test_custom_cache_dir(self):
        self.assertEqual(paths.cache_dir(), "/srv/cache/appcfg")


class TestDefaultCache(unittest.TestCase):
    def test_default_cache_dir(self):
        home = os.path.expanduser("~")
        self.assertEqual(paths.cache_dir(), os.path.join(home, ".cache", "appcfg"))
