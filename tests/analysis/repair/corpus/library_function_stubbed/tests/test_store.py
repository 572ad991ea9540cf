import store


def test_has_sees_an_existing_file(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    assert store.has(str(tmp_path / "a.txt"))


def test_ensure_dir_creates_a_missing_directory(tmp_path):
    made = []
    store.os.makedirs = made.append
    store.os.path.exists = lambda path: False
    store.ensure_dir(str(tmp_path / "cache"))
    assert made == [str(tmp_path / "cache")]
