"""The plugin loads into the PyPI pybullet (3.2.7, API 202010061) in DIRECT mode, steps dfm in
every internal step, reads the supported shapes (box, sphere, capsule, cylinder, plane), re-reads
them when bodies come and go, and reports what it cannot use instead of ignoring it silently."""

import pybullet as p

import dfm_pybullet
from conftest import box, ground, step


def test_api_version_is_the_one_targeted():
    # The plugin's initPlugin returns 202010061 (b3_api.h); a different pybullet would refuse it.
    assert p.getAPIVersion() == 202010061


def test_plugin_loads_and_ticks(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    assert dfm.plugin >= 0
    ground(client)
    box(client, 1.0, [0.1, 0.1, 0.1], [0, 0, 0.1])
    step(client, 5)
    assert dfm.tick_count == 5  # one dfm step per internal pybullet step
    assert dfm.shape_count == 2
    assert dfm.messages() == []
    p.setPhysicsEngineParameter(numSubSteps=3, physicsClientId=client)
    step(client, 2)
    assert dfm.tick_count == 5 + 2 * 3


def test_shapes_follow_bodies_added_and_removed(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    ground(client)
    step(client, 1)
    assert dfm.shape_count == 1
    sphere = p.createMultiBody(1, p.createCollisionShape(p.GEOM_SPHERE, radius=0.1, physicsClientId=client),
                               basePosition=[0, 0, 1], physicsClientId=client)
    for geom, kw in ((p.GEOM_CAPSULE, {"radius": 0.1, "height": 0.3}), (p.GEOM_CYLINDER, {"radius": 0.1,
                                                                                           "height": 0.3})):
        p.createMultiBody(1, p.createCollisionShape(geom, physicsClientId=client, **kw), basePosition=[1, 0, 1],
                          physicsClientId=client)
    step(client, 1)
    assert dfm.shape_count == 4
    p.removeBody(sphere, physicsClientId=client)
    step(client, 1)
    assert dfm.shape_count == 3
    assert dfm.messages() == []


def test_unsupported_shapes_and_bodies_are_reported(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    # A concave mesh from vertices and indices: pybullet's C API returns no triangles (World.set_mesh).
    cube = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]
    faces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7]
    mesh = p.createCollisionShape(p.GEOM_MESH, vertices=cube, indices=faces, physicsClientId=client)
    mesh_body = p.createMultiBody(0, mesh, basePosition=[5, 5, 0], physicsClientId=client)
    n = 4
    field = p.createCollisionShape(p.GEOM_HEIGHTFIELD, meshScale=[0.1, 0.1, 1], heightfieldData=[0.0] * (n * n),
                                   numHeightfieldRows=n, numHeightfieldColumns=n, physicsClientId=client)
    field_body = p.createMultiBody(0, field, basePosition=[-5, 0, 0], physicsClientId=client)
    maximal = p.createMultiBody(1, p.createCollisionShape(p.GEOM_BOX, halfExtents=[.1, .1, .1],
                                                          physicsClientId=client),
                                basePosition=[3, 0, 1], useMaximalCoordinates=True, physicsClientId=client)
    step(client, 2)
    assert dfm.shape_count == 0
    messages = dfm.messages()
    assert len(messages) == 3, messages  # each reported once, not once per tick
    assert any(f"body {mesh_body} link -1 shape 0: concave GEOM_MESH" in m and "set_mesh" in m
               for m in messages), messages
    assert any(f"body {field_body} link -1:" in m and "GEOM_HEIGHTFIELD" in m for m in messages), messages
    assert any(f"body {maximal} is not a multibody" in m and "useMaximalCoordinates" in m for m in messages), messages
