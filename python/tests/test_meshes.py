"""GEOM_MESH collision shapes become dfm mesh SDF shapes (docs/pybullet.md, "Meshes").

- A cloth on a dynamic convex mesh box (pybullet_data's cube.obj through createCollisionShape with
  meshScale (0.3, 0.3, 0.1): a convex hull whose points the plugin reads with b3GetMeshData) on the
  ground: the box-ground normal force equals box + cloth weight within 1% (issue 17's bound, as
  test_cloth_on_box.py), and the cloth rests at the box's top + its collision margin (Bullet's
  hull surface: pybullet's 0.001 m; the box itself rests that far above the ground) + the cloth's
  2 mm contact radius, within 0.5 mm. A wrong scale misses by 0.4 m, a missing margin by 1 mm.
  Measured (CPU, 4 x 10): 4.7873 N of 4.7873 N; cloth 2.997 to 2.999 mm above the hull's top
  (expected 3.000).
- A URDF whose collision is cube.obj scaled (0.1, 0.3, 0.1) (the plugin reads the file and scale
  pybullet reports): a 0.24 m cloth rests on the 0.1 m wide top at top + 3 mm and hangs down
  over the x sides; with the scale ignored (a 1 m cube) it would lie flat 0.45 m higher, with x
  and y swapped it would hang over the y sides. Measured: middle row 2.999 to 3.052 mm above the
  top, lowest vertex 0.069 m below it, every hanging vertex at |x| >= 0.054 m.
- A concave cup (outer 0.3 x 0.3 x 0.1 m, a 0.2 x 0.2 x 0.06 m cavity open at the top) from
  createCollisionShape(vertices, indices), handed to dfm with World.set_mesh (pybullet's C API
  returns no triangles of a concave mesh): before set_mesh the plugin reports it with the call
  to make; after, a 0.16 m cloth dropped into it falls into the cavity and rests on its floor
  at floor + margin + contact radius within 0.5 mm, no vertex inside the cup's walls or floor (by
  more than 0.5 mm), and dfm's reaction on the cup equals the cloth's weight within 1% (a cloth
  falling through reads 0). Its convex hull (what pybullet would make of the same points
  without indices) would hold the cloth 0.06 m higher, at the rim.
  Measured: 3.000 mm above the floor, 0 vertices inside, reaction 1.0000 of the weight.
"""

import os
import tempfile

import numpy as np
import pybullet as p
import pybullet_data
import pytest

import dfm_pybullet
from conftest import ground, step

G = 9.81
CONTACT_RADIUS = 0.002  # dfm_cloth_def.contact_radius default, m
CUBE_OBJ = os.path.join(pybullet_data.getDataPath(), "cube.obj")  # unit cube, +-0.5 m


def margin_of(client, body):
    return p.getDynamicsInfo(body, -1, physicsClientId=client)[11]  # collision margin, m


def test_cloth_rests_on_a_convex_mesh_box(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    plane = ground(client)
    shape = p.createCollisionShape(p.GEOM_MESH, fileName=CUBE_OBJ, meshScale=[0.3, 0.3, 0.1], physicsClientId=client)
    box_mass, cloth_density, cloth_size = 0.2, 5.0, 0.24
    b = p.createMultiBody(box_mass, shape, basePosition=[0, 0, 0.051], physicsClientId=client)
    cloth = dfm.add_cloth(size=(cloth_size, cloth_size), resolution=(13, 13), center=(0, 0, 0.106),
                          density=cloth_density)
    step(client, 150)
    readings = []
    for _ in range(30):
        p.stepSimulation(physicsClientId=client)
        readings.append(sum(cp[9] for cp in p.getContactPoints(b, plane, physicsClientId=client)))
    assert dfm.messages() == [] and dfm.shape_count == 2
    force = float(np.mean(readings))
    cloth_mass = cloth_density * cloth_size**2
    expected = (box_mass + cloth_mass) * G
    top = p.getBasePositionAndOrientation(b, physicsClientId=client)[0][2] + 0.05
    rest = top + margin_of(client, b) + CONTACT_RADIUS
    z = dfm.positions(cloth)[:, 2]
    print(f"mesh box: ground {force:.4f} N of {expected:.4f} N; cloth {1000 * (z.min() - top):.3f} to "
          f"{1000 * (z.max() - top):.3f} mm above the hull top (expected {1000 * (rest - top):.3f})")
    assert force == pytest.approx(expected, rel=0.01)
    assert np.all(np.abs(z - rest) < 0.0005), (z.min() - rest, z.max() - rest)
    f, _ = dfm.reactions()[(b, -1)]
    assert f[2] == pytest.approx(-cloth_mass * G, rel=0.01)


URDF = """<?xml version="1.0"?>
<robot name="scaled_cube">
  <link name="base">
    <inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
    <collision><origin xyz="0 0 0"/><geometry><mesh filename="{obj}" scale="0.1 0.3 0.1"/></geometry></collision>
  </link>
</robot>
"""


def test_cloth_on_a_scaled_urdf_mesh(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scaled_cube.urdf")
        with open(path, "w") as f:
            f.write(URDF.format(obj=CUBE_OBJ))
        body = p.loadURDF(path, basePosition=[0, 0, 0.5], useFixedBase=True, physicsClientId=client)
    data = p.getCollisionShapeData(body, -1, physicsClientId=client)[0]
    assert data[2] == p.GEOM_MESH and data[4].decode().endswith("cube.obj")  # what the plugin reads
    cloth = dfm.add_cloth(size=(0.24, 0.24), resolution=(13, 13), center=(0, 0, 0.555), density=1.0)
    step(client, 150)
    assert dfm.messages() == [] and dfm.shape_count == 1
    top = 0.55
    rest = top + margin_of(client, body) + CONTACT_RADIUS
    xyz = dfm.positions(cloth)
    centre = xyz[np.abs(xyz[:, 0]) < 0.01]  # the middle row over the 0.1 m wide top (bent near its edges)
    hanging = xyz[xyz[:, 2] < top - 0.01]
    print(f"scaled URDF mesh: middle row {1000 * (centre[:, 2].min() - top):.3f} to "
          f"{1000 * (centre[:, 2].max() - top):.3f} mm above the top (expected {1000 * (rest - top):.3f}); "
          f"lowest {top - xyz[:, 2].min():.3f} m below the top; {len(hanging)} vertices hang, "
          f"|x| >= {np.abs(hanging[:, 0]).min():.4f} m")
    assert np.all(np.abs(centre[:, 2] - rest) < 0.0005), (centre[:, 2].min() - rest, centre[:, 2].max() - rest)
    # It hangs over the x sides (0.05 m from the centre), 0.07 m of cloth each side, and only
    # there: the y sides are 0.15 m out, beyond the 0.12 m half cloth.
    assert xyz[:, 2].min() < top - 0.04
    assert np.all(np.abs(hanging[:, 0]) > 0.05)


def cup_mesh(outer=0.15, inner=0.1, height=0.1, floor=0.04):
    """A closed cup: outer box +-outer (x, y), z 0..height, a cavity +-inner down to z = floor,
    open at the top. Returns (vertices (16, 3), indices (28 * 3,)), counter-clockwise outside."""
    sq = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    v = ([(outer * x, outer * y, 0.0) for x, y in sq] + [(outer * x, outer * y, height) for x, y in sq] +
         [(inner * x, inner * y, height) for x, y in sq] + [(inner * x, inner * y, floor) for x, y in sq])
    v = np.array(v)
    ob, ot, it, ib = 0, 4, 8, 12  # first vertex of each ring
    tris = []

    def quad(a, b, c, d, normal):
        for t in ((a, b, c), (a, c, d)):
            n = np.cross(v[t[1]] - v[t[0]], v[t[2]] - v[t[0]])
            tris.append(t if np.dot(n, normal) > 0 else (t[0], t[2], t[1]))

    quad(ob + 0, ob + 1, ob + 2, ob + 3, (0, 0, -1))  # bottom
    quad(ib + 0, ib + 1, ib + 2, ib + 3, (0, 0, 1))  # cavity floor, facing up into the cavity
    for k in range(4):
        k1 = (k + 1) % 4
        side = v[k] + v[k1]  # outward direction of this side
        side = side / np.linalg.norm(side)
        quad(ob + k, ob + k1, ot + k1, ot + k, side)  # outer wall
        quad(ot + k, ot + k1, it + k1, it + k, (0, 0, 1))  # rim
        quad(it + k, it + k1, ib + k1, ib + k, -side)  # inner wall, facing the cavity
    return v, np.array(tris, np.int32).reshape(-1)


def inside_cup(xyz, tol, outer=0.15, inner=0.1, height=0.1, floor=0.04):
    """Points inside the cup's solid (walls and floor) by more than `tol`, cup at the origin."""
    x, y, z = np.abs(xyz[:, 0]), np.abs(xyz[:, 1]), xyz[:, 2]
    in_outer = (x < outer - tol) & (y < outer - tol) & (z > tol) & (z < height - tol)
    in_cavity = (x < inner + tol) & (y < inner + tol) & (z > floor + tol)
    return in_outer & ~in_cavity


def test_cloth_drapes_into_a_concave_cup(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    v, idx = cup_mesh()
    cup = p.createMultiBody(0, p.createCollisionShape(p.GEOM_MESH, vertices=v.tolist(), indices=idx.tolist(),
                                                      physicsClientId=client), physicsClientId=client)
    step(client, 1)
    messages = dfm.messages()
    assert dfm.shape_count == 0
    assert any(f"body {cup} link -1 shape 0: concave GEOM_MESH" in m and "set_mesh" in m for m in messages), messages
    dfm.set_mesh(cup, v, idx)
    cloth_density, cloth_size = 1.0, 0.16
    cloth = dfm.add_cloth(size=(cloth_size, cloth_size), resolution=(11, 11), center=(0, 0, 0.11),
                          density=cloth_density)
    step(client, 180)
    assert dfm.shape_count == 1
    xyz = dfm.positions(cloth)
    inside = int(np.count_nonzero(inside_cup(xyz, 0.0005)))
    f, _ = dfm.reactions()[(cup, -1)]
    weight = cloth_density * cloth_size**2 * G
    floor = 0.04
    rest = floor + margin_of(client, cup) + CONTACT_RADIUS
    print(f"concave cup: cloth {1000 * (xyz[:, 2].min() - floor):.3f} to {1000 * (xyz[:, 2].max() - floor):.3f} mm "
          f"above the cavity floor (expected {1000 * (rest - floor):.3f}), {inside} vertices inside the walls, "
          f"reaction {-f[2] / weight:.4f} of the weight")
    assert np.all(np.abs(xyz[:, 2] - rest) < 0.0005)  # on the floor, 0.06 m below the rim (its hull's top)
    assert inside == 0
    assert -f[2] == pytest.approx(weight, rel=0.01)


def test_set_mesh_refuses_bad_meshes(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    v, idx = cup_mesh()
    cup = p.createMultiBody(0, p.createCollisionShape(p.GEOM_MESH, vertices=v.tolist(), indices=idx.tolist(),
                                                      physicsClientId=client), physicsClientId=client)
    with pytest.raises(dfm_pybullet.DfmError, match="no opposite edge") as e:
        dfm.set_mesh(cup, v, idx[:-3])  # one triangle missing: open
    assert e.value.name == "DFM_ERROR_INVALID_VALUE"
    with pytest.raises(dfm_pybullet.DfmError, match=r"indices\[5\] is 99") as e:
        bad = idx.copy()
        bad[5] = 99
        dfm.set_mesh(cup, v, bad)
    assert e.value.name == "DFM_ERROR_INDEX_OUT_OF_RANGE"
    with pytest.raises(ValueError, match="vertices must be"):
        dfm.set_mesh(cup, v[:, :2], idx)


def test_convex_meshes_from_vertices_and_urdf_hulls_are_read(client):
    # A hull from vertices only (getMeshData's points), pybullet_data's multi-part duck_vhacd.urdf
    # (the OBJ file's 5 parts, one dfm hull each, as pybullet hulls them): each translated, nothing
    # reported.
    dfm = dfm_pybullet.attach(client, backend="cpu")
    tetra = p.createCollisionShape(p.GEOM_MESH, vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                   physicsClientId=client)
    p.createMultiBody(0, tetra, basePosition=[5, 5, 0], physicsClientId=client)
    p.loadURDF(os.path.join(pybullet_data.getDataPath(), "duck_vhacd.urdf"), basePosition=[3, 0, 0],
               physicsClientId=client)
    step(client, 1)
    assert dfm.messages() == []
    assert dfm.shape_count == 1 + 5
