import os

BASE_TEST_FILE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_files")
TEST_DATA_PATH = os.path.join(BASE_TEST_FILE_PATH, "data")
