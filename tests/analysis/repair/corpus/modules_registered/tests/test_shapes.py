import unittest

import shapes


class SquareTest(unittest.TestCase):
    def test_square_area(self):
        from shapes.square import Square

        self.assertEqual(Square(3).area, 9)


class MakeTest(unittest.TestCase):
    def setUp(self):
        self.square = shapes.make("square", 2)

    def test_make_square(self):
        self.assertEqual(self.square.area, 4)
