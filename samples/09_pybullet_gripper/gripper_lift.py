#!/usr/bin/env python3
"""Sample 09: a plain pybullet script with dfm. Two kinematic pybullet pads pinch the edge of a
cloth strip that overhangs a pybullet table, lift it 0.4 m and hold it 1 s. Prints a one-line
summary (held or not, the pads' load against the cloth's weight) and writes the picture of the
final hold, rendered by pybullet's getCameraImage with the cloth added as a visual mesh, to
<out>/final.png. Needs the dfm_pybullet package (pip install ./python; docs/pybullet.md).

    python samples/09_pybullet_gripper/gripper_lift.py --out out/09_pybullet_gripper
"""

import argparse
import os
import sys

import numpy as np
import pybullet as p

import dfm_pybullet
from dfm_pybullet.picture import write_png

TOP = 0.1  # table top, m
PAD_X = 0.225  # pads just past the table edge (x = 0.2), m
PAD_HALF = [0.02, 0.05, 0.01]
NU, NV = 16, 5  # cloth vertices along x and y
DENSITY = 2.0  # kg/m^2
SIZE = (0.3, 0.08)  # m


def box(c, mass, half, pos, rgba):
    col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
    vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=rgba, physicsClientId=c)
    return p.createMultiBody(mass, col, vis, basePosition=pos, physicsClientId=c)


def grid_triangles():
    """Both windings of every grid cell (pybullet's renderer culls back faces)."""
    tris = []
    for j in range(NV - 1):
        for i in range(NU - 1):
            a, b, c, d = i + j * NU, i + 1 + j * NU, i + (j + 1) * NU, i + 1 + (j + 1) * NU
            tris += [a, b, d, a, d, c, a, d, b, a, c, d]
    return tris


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/09_pybullet_gripper", help="output directory")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    c = p.connect(p.DIRECT)
    p.setGravity(0, 0, -9.81, physicsClientId=c)
    dfm = dfm_pybullet.attach(c, backend=args.backend)
    box(c, 0, [0.2, 0.2, 0.05], [0, 0, 0.05], [0.55, 0.45, 0.35, 1])
    cloth = dfm.add_cloth(size=SIZE, resolution=(NU, NV), center=(0.11, 0, TOP + 0.003), density=DENSITY,
                          bend_stiffness=0.05)
    lower = box(c, 0, PAD_HALF, [PAD_X, 0, 0.03], [0.3, 0.3, 0.8, 1])
    upper = box(c, 0, PAD_HALF, [PAD_X, 0, 0.25], [0.3, 0.3, 0.8, 1])
    for pad in (lower, upper):
        p.changeDynamics(pad, -1, lateralFriction=1.0, physicsClientId=c)

    def pads_at(zl, zu):
        p.resetBasePositionAndOrientation(lower, [PAD_X, 0, zl], [0, 0, 0, 1], physicsClientId=c)
        p.resetBasePositionAndOrientation(upper, [PAD_X, 0, zu], [0, 0, 0, 1], physicsClientId=c)
        p.stepSimulation(physicsClientId=c)

    for _ in range(120):  # the overhang droops
        p.stepSimulation(physicsClientId=c)
    x = dfm.positions(cloth)
    edge = x[:, 0] > 0.205
    zc = float(x[edge, 2].mean())
    gap = PAD_HALF[2] + 0.0015
    for i in range(120):  # close
        f = (i + 1) / 120
        pads_at(0.03 + f * (zc - gap - 0.03), 0.25 + f * (zc + gap - 0.25))
    for i in range(360):  # lift 0.4 m in 1.5 s
        dz = 0.4 * (i + 1) / 360
        pads_at(zc - gap + dz, zc + gap + dz)
    carried = []
    for _ in range(240):  # hold 1 s
        p.stepSimulation(physicsClientId=c)
        r = dfm.reactions()
        carried.append(-(r[(lower, -1)][0][2] + r[(upper, -1)][0][2]))
    x = dfm.positions(cloth)
    weight = DENSITY * SIZE[0] * SIZE[1] * 9.81
    held = bool(x[:, 2].min() > TOP + 0.02 and abs(float(x[edge, 2].mean()) - (zc + 0.4)) < 0.02)
    load = float(np.mean(carried[-120:]))

    vis = p.createVisualShape(p.GEOM_MESH, vertices=x.astype(float).tolist(), indices=grid_triangles(),
                              rgbaColor=[0.85, 0.2, 0.2, 1], physicsClientId=c)
    p.createMultiBody(0, -1, vis, physicsClientId=c)
    view = p.computeViewMatrix([0.9, -0.9, 0.6], [0.15, 0, 0.3], [0, 0, 1])
    proj = p.computeProjectionMatrixFOV(45, 4 / 3, 0.05, 5)
    w, h, rgba, _, _ = p.getCameraImage(640, 480, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=c)
    png = os.path.join(args.out, "final.png")
    write_png(png, np.asarray(rgba, np.uint8).reshape(h, w, 4)[:, :, :3].copy())
    print(f"09_pybullet_gripper: {'held' if held else 'DROPPED'}; lowest vertex {x[:, 2].min() - TOP:.3f} m above "
          f"the table; pads carry {load:.4f} N of the cloth's {weight:.4f} N; {dfm.tick_count} dfm steps; {png}")
    p.disconnect(physicsClientId=c)
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
