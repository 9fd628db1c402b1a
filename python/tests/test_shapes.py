"""Each supported pybullet shape reaches dfm with its size, axis and frame: a small cloth patch
dropped on the top of a static sphere, upright capsule and cylinder, a box with an offset
collision frame, a box that is a link (not the base) of its body, and a tilted plane comes to rest
on that surface at dfm's contact radius (2 mm). A wrong dimension convention (pybullet's full
box extents, capsule length between the cap centres, (length, radius) order) moves the rest
height by 50 mm or more (a capsule or cylinder on the wrong axis too); the bound is 1.5 mm."""

import math

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from conftest import step

RADIUS = 0.002  # dfm's default cloth contact radius, m


def shape(c, geom, **kw):
    return p.createCollisionShape(geom, physicsClientId=c, **kw)


CASES = {
    # name: (build(c) -> None, top of the surface under the patch centre, m)
    "sphere": (lambda c: p.createMultiBody(0, shape(c, p.GEOM_SPHERE, radius=0.1), basePosition=[0, 0, 0.5],
                                           physicsClientId=c), 0.6),
    "capsule": (lambda c: p.createMultiBody(0, shape(c, p.GEOM_CAPSULE, radius=0.1, height=0.2),
                                            basePosition=[0, 0, 0.5], physicsClientId=c), 0.7),
    "cylinder": (lambda c: p.createMultiBody(0, shape(c, p.GEOM_CYLINDER, radius=0.1, height=0.3),
                                             basePosition=[0, 0, 0.5], physicsClientId=c), 0.65),
    "box_offset_frame": (lambda c: p.createMultiBody(0, shape(c, p.GEOM_BOX, halfExtents=[0.1, 0.1, 0.05],
                                                              collisionFramePosition=[0, 0, 0.1]),
                                                     basePosition=[0, 0, 0.5], physicsClientId=c), 0.65),
    "box_link": (lambda c: p.createMultiBody(
        0, -1, basePosition=[0, 0, 0], linkMasses=[0], linkCollisionShapeIndices=[
            shape(c, p.GEOM_BOX, halfExtents=[0.1, 0.1, 0.05])], linkVisualShapeIndices=[-1],
        linkPositions=[[0, 0, 0.5]], linkOrientations=[[0, 0, 0, 1]], linkInertialFramePositions=[[0, 0, 0]],
        linkInertialFrameOrientations=[[0, 0, 0, 1]], linkParentIndices=[0], linkJointTypes=[p.JOINT_FIXED],
        linkJointAxis=[[0, 0, 1]], physicsClientId=c), 0.55),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_patch_rests_on_top(client, name):
    build, top = CASES[name]
    dfm = dfm_pybullet.attach(client, backend="cpu")
    build(client)
    cloth = dfm.add_cloth(size=(0.06, 0.06), resolution=(5, 5), center=(0, 0, top + 0.01))
    step(client, 120)
    assert dfm.shape_count == 1 and dfm.messages() == []
    z = dfm.positions(cloth)[12, 2]  # the centre vertex
    print(f"{name}: centre vertex at {z:.4f} m, surface top {top} m + {RADIUS} m")
    assert z == pytest.approx(top + RADIUS, abs=0.0015)


def test_patch_rests_on_a_tilted_plane(client):
    tilt = math.radians(10.0)  # tan 10 deg = 0.18 < mu 0.5: it sticks
    normal = np.array([0.0, math.sin(tilt), math.cos(tilt)])
    dfm = dfm_pybullet.attach(client, backend="cpu")
    p.createMultiBody(0, shape(client, p.GEOM_PLANE, planeNormal=normal.tolist()), physicsClientId=client)
    cloth = dfm.add_cloth(size=(0.06, 0.06), resolution=(5, 5), center=(0, 0, 0.012))
    step(client, 120)
    distance = dfm.positions(cloth).astype(np.float64) @ normal
    print(f"tilted plane: vertex distances {distance.min():.4f} .. {distance.max():.4f} m")
    assert np.all(np.abs(distance - RADIUS) < 0.0015)
