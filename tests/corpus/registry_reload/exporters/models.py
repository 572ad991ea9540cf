class Record:
    def __init__(self, **fields: object) -> None:
        self.fields = fields


def make_record(**fields: object) -> Record:
    return Record(**fields)
