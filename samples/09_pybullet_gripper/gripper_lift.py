#!/usr/bin/env python3
"""Sample 09: a plain pybullet script with dfm. A two-finger URDF gripper (two_finger_gripper.urdf:
a fixed base, a prismatic "lift" joint carrying a palm, two prismatic fingers closing along z),
driven by pybullet's joint motors (POSITION_CONTROL) from open fingers, pinches the overhanging edge of a cloth strip
lying on a pybullet table, lifts it 0.35 m and holds it 1 s. Prints a one-line verdict and exits 1
unless it holds: the pinched edge rose with the fingers (by at least 95% of the lift and within
5 mm of the fingers' mid-plane), the cloth's lowest vertex is more than 2 cm above the table, each
finger squeezes the cloth and the two finger links together carry the cloth's weight within 5%
(dfm.reactions() of the finger links, mean over the last 0.5 s), and the plugin reported nothing.
Writes the picture of the final hold, rendered by pybullet's getCameraImage with the cloth added
as a visual mesh, to <out>/final.png. Needs the dfm_pybullet package (pip install ./python;
docs/pybullet.md).

    python samples/09_pybullet_gripper/gripper_lift.py --out out/09_pybullet_gripper
"""

import argparse
import os
import sys

import numpy as np
import pybullet as p

import dfm_pybullet
from dfm_pybullet.picture import write_png

URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_finger_gripper.urdf")
TOP = 0.1  # table top, m
BASE_X = 0.24  # gripper base: the pads span x = 0.205 .. 0.245, past the table edge (x = 0.2), m
LIFT, UPPER, LOWER = 0, 1, 2  # joint indices = link indices of the palm and the fingers
LIFT_BY = 0.35  # m
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
    ap.add_argument("--gap", type=float, default=1.5,
                    help="mm from the pinched edge to each pad face when closed (default 1.5: 0.5 mm into the "
                         "cloth's 2 mm contact radius; at 5 the pads clear it, the strip only drapes over the lower "
                         "finger and the verdict fails: no squeeze)")
    args = ap.parse_args(argv)
    gap = args.gap * 1e-3
    os.makedirs(args.out, exist_ok=True)

    c = p.connect(p.DIRECT)
    p.setGravity(0, 0, -9.81, physicsClientId=c)
    dfm = dfm_pybullet.attach(c, backend=args.backend)
    box(c, 0, [0.2, 0.2, 0.05], [0, 0, 0.05], [0.55, 0.45, 0.35, 1])
    cloth = dfm.add_cloth(size=SIZE, resolution=(NU, NV), center=(0.11, 0, TOP + 0.003), density=DENSITY,
                          bend_stiffness=0.05)
    # Friction 1.0 on the fingers comes from the URDF's <contact><lateral_friction>.
    gripper = p.loadURDF(URDF, basePosition=[BASE_X, 0, TOP], useFixedBase=True, physicsClientId=c)

    def drive(q_lift, q_upper, q_lower):
        # Motor forces well above the ~50 N squeeze the cloth pushes back with.
        for joint, q, force in ((LIFT, q_lift, 2000.0), (UPPER, q_upper, 500.0), (LOWER, q_lower, 500.0)):
            p.setJointMotorControl2(gripper, joint, p.POSITION_CONTROL, targetPosition=q, force=force, maxVelocity=1.0,
                                    physicsClientId=c)

    def finger_z():
        return [p.getLinkState(gripper, link, physicsClientId=c)[4][2] for link in (UPPER, LOWER)]

    # Start open: at q = 0 the pads meet in the pinch plane, the table's height, so the upper pad
    # would start inside the cloth's overhang and flick it as it opens (docs/physics.md, session 14).
    p.resetJointState(gripper, UPPER, 0.14, physicsClientId=c)
    p.resetJointState(gripper, LOWER, -0.06, physicsClientId=c)
    drive(0.0, 0.14, -0.06)  # open: the lower pad below the overhang, the upper one above it
    for _ in range(120):  # the overhang droops
        p.stepSimulation(physicsClientId=c)
    x = dfm.positions(cloth)
    edge = x[:, 0] > 0.205
    zc = float(x[edge, 2].mean())
    for i in range(120):  # palm to the edge's height, fingers close on it
        f = (i + 1) / 120
        drive(f * (zc - TOP), 0.14 + f * (gap - 0.14), -0.06 + f * (0.06 - gap))
        p.stepSimulation(physicsClientId=c)
    for _ in range(30):  # squeeze settles
        p.stepSimulation(physicsClientId=c)
    edge_start = float(dfm.positions(cloth)[edge, 2].mean())
    for i in range(360):  # lift 0.35 m in 1.5 s
        drive(zc - TOP + LIFT_BY * (i + 1) / 360, gap, -gap)
        p.stepSimulation(physicsClientId=c)
    carried, squeeze, palm = [], [], []
    for _ in range(240):  # hold 1 s
        p.stepSimulation(physicsClientId=c)
        r = dfm.reactions()
        fu, fl = r[(gripper, UPPER)][0], r[(gripper, LOWER)][0]
        carried.append(-(fu[2] + fl[2]))
        squeeze.append(min(fu[2], -fl[2]))  # the upper pad is pushed up, the lower one down
        palm.append(r.get((gripper, LIFT), ((0, 0, 0),))[0])
    x = dfm.positions(cloth)
    zu, zl = finger_z()
    edge_z = float(x[edge, 2].mean())
    rose = edge_z - edge_start
    weight = DENSITY * SIZE[0] * SIZE[1] * 9.81
    load = float(np.mean(carried[-120:]))
    lowest = float(x[:, 2].min() - TOP)
    messages = dfm.messages()
    checks = {
        "edge rose with the fingers": rose > 0.95 * LIFT_BY and abs(edge_z - 0.5 * (zu + zl)) < 0.005,
        "lowest vertex above the table": lowest > 0.02,
        "fingers squeeze": min(squeeze) > 0,
        "fingers carry the weight": abs(load - weight) < 0.05 * weight,
        "nothing reported": not messages,
    }
    held = all(checks.values())

    vis = p.createVisualShape(p.GEOM_MESH, vertices=x.astype(float).tolist(), indices=grid_triangles(),
                              rgbaColor=[0.85, 0.2, 0.2, 1], physicsClientId=c)
    p.createMultiBody(0, -1, vis, physicsClientId=c)
    view = p.computeViewMatrix([-0.3, -0.8, 0.55], [0.2, 0, 0.28], [0, 0, 1])
    proj = p.computeProjectionMatrixFOV(45, 4 / 3, 0.05, 5)
    w, h, rgba, _, _ = p.getCameraImage(640, 480, view, proj, renderer=p.ER_TINY_RENDERER, physicsClientId=c)
    png = os.path.join(args.out, "final.png")
    write_png(png, np.asarray(rgba, np.uint8).reshape(h, w, 4)[:, :, :3].copy())
    failed = [name for name, ok in checks.items() if not ok]
    print(f"09_pybullet_gripper: {'held' if held else 'FAILED ' + ', '.join(failed)}; URDF gripper lifted "
          f"{LIFT_BY:.2f} m, the pinched edge rose {rose:.4f} m and sits {(edge_z - 0.5 * (zu + zl)) * 1e3:+.2f} mm "
          f"from the fingers' mid-plane; lowest vertex {lowest:.3f} m above the table; fingers carry {load:.4f} N of "
          f"the cloth's {weight:.4f} N (bound 5%), squeeze {min(squeeze):.1f} N, palm {np.linalg.norm(np.mean(palm[-120:], axis=0)):.4f} N; "
          f"{dfm.tick_count} dfm steps; {messages or 'nothing reported'}; {png}")
    p.disconnect(physicsClientId=c)
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
