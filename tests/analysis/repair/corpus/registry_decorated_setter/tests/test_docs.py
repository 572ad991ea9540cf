import unittest

import api


class DocsTest(unittest.TestCase):
    def setUp(self):
        self.seen = []

    def note(self, what):
        self.seen.append(what)

    def test_schema_fields(self):
        self.note("fields")

        @api.schema
        class User:
            name: str
            email: str

        self.assertEqual(api.describe("User")["fields"], ["email", "name"])
        self.note("done")

    def test_user_document(self):
        self.assertEqual(api.describe("User")["body"], "User")
