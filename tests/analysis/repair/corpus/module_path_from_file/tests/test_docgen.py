import os
import unittest

import docgen


class TestDocgen(unittest.TestCase):
    def test_custom_template(self):
        docgen.template_path = os.path.join(
            os.path.dirname(docgen.__file__), "templates", "custom.rst"
        )
        self.assertEqual(docgen.render("users"), "CUSTOM users\n")

    def test_render_default(self):
        self.assertEqual(docgen.render("users"), "API: users\n")
