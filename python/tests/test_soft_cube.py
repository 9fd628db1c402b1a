"""A soft cube (dfm tetrahedra) and dynamic pybullet boxes, both ways round.

1. A 0.5 kg soft cube resting on a 0.2 kg pybullet box on the ground (explicit coupling, the
   default): the box-ground normal force equals box plus cube weight within 1%.
2. A 0.5 kg pybullet box resting on a 0.5 kg soft cube on the ground plane: with coupling
   "implicit" (dfm solves the box with the cube, dfm_coupling.h) the box stays on the cube and the
   plane carries both weights (dfm's reaction on the plane within 1%). With "explicit" the stiff
   contact chatters and the box falls off the cube within 2 s (measured: box on the ground at
   1.9 s); that run is kept as a known failure, which also shows the check can fail.
Measured (CPU, 4 x 10): 1. ratio 1.00000; 2. implicit 9.8097 N of 9.8100 N, box still at 0.1236 m."""

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from conftest import box, ground, step

G = 9.81
CUBE_DENSITY = 500.0  # kg/m^3: a 0.1 m cube of 0.5 kg


def test_soft_cube_on_a_box(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    plane = ground(client)
    b = box(client, 0.2, [0.15, 0.15, 0.05], [0, 0, 0.05])
    cube = dfm.add_soft_box((-0.05, -0.05, 0.103), (0.05, 0.05, 0.203), resolution=(4, 4, 4), density=CUBE_DENSITY)
    step(client, 180)
    readings = []
    for _ in range(60):
        p.stepSimulation(physicsClientId=client)
        readings.append(sum(cp[9] for cp in p.getContactPoints(b, plane, physicsClientId=client)))
    expected = (0.2 + 0.5) * G
    print(f"ground normal force {np.mean(readings):.4f} N of {expected:.4f} N")
    assert np.mean(readings) == pytest.approx(expected, rel=0.01)
    z = dfm.positions(cube)[:, 2]
    assert z.min() == pytest.approx(0.102, abs=0.002)


def box_on_cube(client, coupling):
    dfm = dfm_pybullet.attach(client, backend="cpu", coupling=coupling)
    plane = ground(client)
    dfm.add_soft_box((-0.05, -0.05, 0.002), (0.05, 0.05, 0.102), resolution=(4, 4, 4), density=CUBE_DENSITY)
    b = box(client, 0.5, [0.04, 0.04, 0.02], [0, 0, 0.125])
    plane_force, heights = [], []
    for i in range(480):
        p.stepSimulation(physicsClientId=client)
        if i >= 420:
            plane_force.append(-dfm.reactions()[(plane, -1)][0][2])
            heights.append(p.getBasePositionAndOrientation(b, physicsClientId=client)[0][2])
    return float(np.mean(plane_force)), min(heights)


def test_box_rests_on_a_soft_cube_implicit(client):
    force, lowest = box_on_cube(client, "implicit")
    print(f"implicit: plane carries {force:.4f} N of {G:.4f} N; box lowest at {lowest:.4f} m")
    assert force == pytest.approx((0.5 + 0.5) * G, rel=0.01)
    assert lowest > 0.115  # on the cube (its top near 0.102 m + the box's 0.02 m half height)


def test_box_on_a_soft_cube_explicit_known_failure(client):
    force, lowest = box_on_cube(client, "explicit")
    print(f"explicit: plane carries {force:.4f} N; box lowest at {lowest:.4f} m")
    if not (force == pytest.approx((0.5 + 0.5) * G, rel=0.01) and lowest > 0.115):
        pytest.xfail("explicit reactions on a stiff soft contact chatter (known; use coupling='implicit')")
    raise AssertionError("the known failure passes now: make this a plain test (docs/pybullet.md)")
