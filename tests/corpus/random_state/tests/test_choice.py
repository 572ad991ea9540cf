import swarm


def test_pick_a_strategy():
    assert swarm.pick(["global", "local", "ring", "star", "pyramid"]) in ("global", "local", "ring")


def test_pick_twice():
    first = swarm.pick(range(100))
    assert 0 <= first < 100
