import schemas


def test_default_description():
    assert schemas.describe() == "migrations('id', 'version', 'applied')"


def test_columns():
    assert len(schemas.table_schema()) == 3
