import pickle

from toolbox.records import Record


def save(**fields):
    return pickle.dumps(Record(fields))


def load(data):
    record = pickle.loads(data)
    if not isinstance(record, Record):
        raise TypeError(f"not a Record: {type(record)!r}")
    return record
