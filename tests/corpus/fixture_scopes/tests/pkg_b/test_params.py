import pytest

SEEN: list[str] = []


@pytest.mark.parametrize(
    "user, position",
    [("ann", 1), ("bob", 2), ("cyd", 3)],
)
def test_users_in_sequence(user, position, seed_file):
    SEEN.append(user)
    assert len(SEEN) == position, f"{user} came at position {len(SEEN)}"


@pytest.mark.parametrize("label", ["with space", "slash/sep", "caf\u00e9"])
def test_odd_ids(label):
    SEEN.append(label)
    assert label
