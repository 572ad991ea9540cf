import numpy as np
import pytest

import swarm

np.random.seed(4135157)  # at import, as many scientific suites do


@pytest.mark.parametrize("particles", [4, 6, 8])
def test_finds_a_low_cost(particles):
    _, cost = swarm.optimize(swarm.sphere, particles=particles)
    assert cost < 0.3


def test_draws_stay_in_bounds():
    assert np.all(np.abs(np.random.uniform(-2, 2, size=10)) <= 2)
