"""Shared fixtures: a fresh DIRECT pybullet client per test (disconnected afterwards) and a
helper that builds the static ground plane."""

import pybullet as p
import pytest


@pytest.fixture
def client():
    c = p.connect(p.DIRECT)
    p.setGravity(0, 0, -9.81, physicsClientId=c)
    yield c
    if p.isConnected(physicsClientId=c):
        p.disconnect(physicsClientId=c)


def ground(c):
    """A static infinite plane z = 0 (a multibody of mass 0)."""
    return p.createMultiBody(0, p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c), physicsClientId=c)


def box(c, mass, half, position):
    """A multibody box of `mass` kg and half extents `half` (m) at `position` (m)."""
    shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
    return p.createMultiBody(mass, shape, basePosition=position, physicsClientId=c)


def step(c, n):
    for _ in range(n):
        p.stepSimulation(physicsClientId=c)
