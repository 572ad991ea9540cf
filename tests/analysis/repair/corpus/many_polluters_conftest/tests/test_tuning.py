import schemas


def test_override_name():
    schemas.table_name = lambda: "history"
    assert schemas.describe().startswith("history")


def test_override_schema():
    schemas.table_schema = lambda: ("id",)
    assert schemas.describe().endswith("('id',)")


def test_override_both():
    schemas.table_name = lambda: "log"
    schemas.table_schema = lambda: ("at",)
    assert schemas.describe() == "log('at',)"


def test_override_again():
    schemas.table_name = lambda: "audit"
    schemas.table_schema = lambda: ("who", "when")
    assert "audit" in schemas.describe()
