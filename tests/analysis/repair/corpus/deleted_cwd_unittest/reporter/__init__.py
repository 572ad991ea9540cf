import os


def output_path(name):
    """Reports go to the current directory unless an absolute path is given."""
    return os.path.join(os.getcwd(), name)
