"""A small particle swarm: every draw comes from the global generators."""

import random

import numpy as np


def sphere(x):
    return float(np.sum(x**2))


def optimize(cost, particles=6, iterations=4):
    swarm = np.random.uniform(-2, 2, size=(particles, 2))
    best = min(swarm, key=cost)
    for _ in range(iterations):
        swarm = swarm + np.random.normal(0, 0.5, size=swarm.shape)
        found = min(swarm, key=cost)
        if cost(found) < cost(best):
            best = found
    return best, cost(best)


def pick(options):
    return random.choice(options)
