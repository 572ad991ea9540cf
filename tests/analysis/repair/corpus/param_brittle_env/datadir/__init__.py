import os


def path_of(name):
    return os.path.join(os.environ["DATADIR_HOME"], name)
