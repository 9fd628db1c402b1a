#!/usr/bin/env python3
"""Sample 10: a plain pybullet script with dfm. A 0.5 kg dfm soft cube (0.1 m, tetrahedra) is
dropped from 3 cm onto a 0.2 kg dynamic pybullet box lying on the ground, and the two settle
for 2 s, coupled both ways (the cube pushes the box down into the ground). The verdict, printed
on one line and the exit status (0 = rests): the cube rests on the box (its lowest vertex within
3 mm of the box top + dfm's 2 mm contact radius, its centre over the box), the box rests on the
ground (its centre within 2 mm of its half height, speed under 1 cm/s), the ground carries box +
cube weight within 2% (pybullet's contact normal forces, mean of the last 0.25 s) and nothing
fell through (no cube vertex below the box top). Writes the picture of the final state, rendered
by pybullet's getCameraImage with the cube's surface added as a visual mesh, to <out>/final.png.
Needs the dfm_pybullet package (pip install ./python; docs/pybullet.md).

    python samples/10_pybullet_soft_box/soft_cube_on_box.py --out out/10_pybullet_soft_box
"""

import argparse
import os
import sys

import numpy as np
import pybullet as p

import dfm_pybullet
from dfm_pybullet.picture import write_png

G = 9.81
BOX_MASS = 0.2  # kg
BOX_HALF = [0.15, 0.15, 0.05]  # m
CUBE = 0.1  # edge, m
CUBE_DENSITY = 500.0  # kg/m^3: 0.5 kg
DROP = 0.03  # m above the box top
CONTACT_RADIUS = 0.002  # dfm's default, m


def surface_triangles(tets):
    """The boundary faces of a tetrahedral mesh (faces of exactly one tet), both windings
    (pybullet's renderer culls back faces), as a flat index list."""
    faces = {}
    for t in tets:
        for f in ((t[0], t[1], t[2]), (t[0], t[1], t[3]), (t[0], t[2], t[3]), (t[1], t[2], t[3])):
            key = tuple(sorted(int(i) for i in f))
            faces[key] = faces.get(key, 0) + 1
    tris = []
    for (a, b, c), n in faces.items():
        if n == 1:
            tris += [a, b, c, a, c, b]
    return tris


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/10_pybullet_soft_box", help="output directory")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--coupling", default="implicit", choices=["implicit", "explicit", "none"],
                    help="none: the box does not feel the cube, and the verdict fails (ground load)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    c = p.connect(p.DIRECT)
    p.setGravity(0, 0, -G, physicsClientId=c)
    dfm = dfm_pybullet.attach(c, backend=args.backend, coupling=args.coupling)
    ground = p.createMultiBody(0, p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c),
                               p.createVisualShape(p.GEOM_BOX, halfExtents=[1, 1, 0.001],
                                                   visualFramePosition=[0, 0, -0.001], rgbaColor=[0.8, 0.8, 0.8, 1],
                                                   physicsClientId=c), physicsClientId=c)
    top = 2 * BOX_HALF[2]
    box = p.createMultiBody(BOX_MASS, p.createCollisionShape(p.GEOM_BOX, halfExtents=BOX_HALF, physicsClientId=c),
                            p.createVisualShape(p.GEOM_BOX, halfExtents=BOX_HALF, rgbaColor=[0.3, 0.4, 0.8, 1],
                                                physicsClientId=c),
                            basePosition=[0, 0, BOX_HALF[2]], physicsClientId=c)
    lo, hi = (-CUBE / 2, -CUBE / 2, top + DROP), (CUBE / 2, CUBE / 2, top + DROP + CUBE)
    cube = dfm.add_soft_box(lo, hi, resolution=(4, 4, 4), density=CUBE_DENSITY)

    carried = []
    for i in range(480):  # 2 s: fall, land, settle
        p.stepSimulation(physicsClientId=c)
        if i >= 420:
            carried.append(sum(cp[9] for cp in p.getContactPoints(box, ground, physicsClientId=c)))
    x = dfm.positions(cube)
    pos, _ = p.getBasePositionAndOrientation(box, physicsClientId=c)
    vel, _ = p.getBaseVelocity(box, physicsClientId=c)
    cube_mass = CUBE_DENSITY * CUBE**3
    weight = (BOX_MASS + cube_mass) * G
    load = float(np.mean(carried))
    top = pos[2] + BOX_HALF[2]
    centre = x.mean(axis=0)
    checks = {
        "cube on the box": abs(x[:, 2].min() - (top + CONTACT_RADIUS)) < 0.003 and
                           bool(np.all(np.abs(centre[:2] - np.asarray(pos[:2])) < np.asarray(BOX_HALF[:2]))),
        "box on the ground": abs(pos[2] - BOX_HALF[2]) < 0.002 and float(np.linalg.norm(vel)) < 0.01,
        "ground carries both": abs(load - weight) < 0.02 * weight,
        "nothing fell through": bool(x[:, 2].min() > top),
    }
    rests = all(checks.values())

    vis = p.createVisualShape(p.GEOM_MESH, vertices=x.astype(float).tolist(), indices=surface_triangles(cube.elements),
                              rgbaColor=[0.85, 0.2, 0.2, 1], physicsClientId=c)
    p.createMultiBody(0, -1, vis, physicsClientId=c)
    view = p.computeViewMatrix([0.55, -0.55, 0.45], [0, 0, 0.1], [0, 0, 1])
    proj = p.computeProjectionMatrixFOV(45, 4 / 3, 0.05, 5)
    w, h, rgba, _, _ = p.getCameraImage(640, 480, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=c)
    png = os.path.join(args.out, "final.png")
    write_png(png, np.asarray(rgba, np.uint8).reshape(h, w, 4)[:, :, :3].copy())
    failed = [k for k, ok in checks.items() if not ok]
    print(f"10_pybullet_soft_box: {'rests' if rests else 'FAILED ' + ', '.join(failed)}; cube lowest "
          f"{(x[:, 2].min() - top) * 1e3:.2f} mm above the box top; box centre at {pos[2]:.4f} m, speed "
          f"{np.linalg.norm(vel):.4f} m/s; ground carries {load:.4f} N of {weight:.4f} N; {dfm.tick_count} dfm steps; "
          f"{png}")
    p.disconnect(physicsClientId=c)
    return 0 if rests else 1


if __name__ == "__main__":
    sys.exit(main())
