import os
import tempfile
import unittest

import reporter


class TestInTempDir(unittest.TestCase):
    def test_writes_into_cwd(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            path = reporter.output_path("out.txt")
            self.assertTrue(path.startswith(os.path.realpath(tmp)) or path.startswith(tmp))


class TestOutputPath(unittest.TestCase):
    def test_relative_name(self):
        self.assertTrue(reporter.output_path("r.txt").endswith("r.txt"))
