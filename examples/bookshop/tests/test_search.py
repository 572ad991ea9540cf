from bookshop import catalog, search


def test_index_covers_every_book():
    assert search.rebuild_index() == len(catalog.all_books())


def test_find_by_author():
    assert [book.title for book in search.find("Tolkien")] == ["The Hobbit"]


def test_unknown_word_finds_nothing():
    assert search.find("dragons") == []
