"""A gripper of two kinematic pybullet pads (mass-0 boxes moved with
resetBasePositionAndOrientation every step, friction 1.0 set with changeDynamics) pinches the edge
of a cloth strip that overhangs a pybullet table, lifts it 0.4 m in 1.5 s and holds it 1 s: the
whole strip leaves the table (its lowest vertex more than 2 cm above the top: it is 0.30 m long
and hangs from a pinch lifted ~0.4 m), and the pinched edge follows the pads through the hold
(its height moves less than 5 mm while the pads stand still, and stays within 2 cm of the pads'
centre); the pads squeeze it and together carry its weight within 5%.
Measured (CPU, 4 x 10): lowest vertex 0.107 m above the top; edge drift over the hold 0.87 mm;
the pads carry 0.4717 N of 0.4709 N with at least 40.75 N of squeeze."""

import os

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from conftest import box, step

PAD_X = 0.225  # m, just past the table edge at x = 0.2
PAD_HALF = [0.02, 0.05, 0.01]
TOP = 0.1  # table top, m


def set_pad(c, pad, z):
    p.resetBasePositionAndOrientation(pad, [PAD_X, 0, z], [0, 0, 0, 1], physicsClientId=c)


def test_gripper_lifts_and_holds_a_cloth(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    box(client, 0, [0.2, 0.2, 0.05], [0, 0, 0.05])
    cloth = dfm.add_cloth(size=(0.3, 0.08), resolution=(16, 5), center=(0.11, 0, TOP + 0.003), density=2.0,
                          bend_stiffness=0.05)
    lower = box(client, 0, PAD_HALF, [PAD_X, 0, 0.03])
    upper = box(client, 0, PAD_HALF, [PAD_X, 0, 0.25])
    for pad in (lower, upper):
        p.changeDynamics(pad, -1, lateralFriction=1.0, physicsClientId=client)
    step(client, 120)  # the overhang droops
    x = dfm.positions(cloth)
    edge = x[:, 0] > 0.205
    assert edge.sum() >= 5, x[:, 0].max()
    zc = float(x[edge, 2].mean())
    # Close: the pad faces end 1.5 mm inside the cloth's 2 mm contact radius on each side.
    gap = PAD_HALF[2] + 0.0015
    for i in range(120):
        f = (i + 1) / 120
        set_pad(client, lower, 0.03 + f * (zc - gap - 0.03))
        set_pad(client, upper, 0.25 + f * (zc + gap - 0.25))
        p.stepSimulation(physicsClientId=client)
    for i in range(360):  # lift 0.4 m
        dz = 0.4 * (i + 1) / 360
        set_pad(client, lower, zc - gap + dz)
        set_pad(client, upper, zc + gap + dz)
        p.stepSimulation(physicsClientId=client)
    edge_z, squeeze, carried = [], [], []
    for _ in range(240):  # hold 1 s
        p.stepSimulation(physicsClientId=client)
        edge_z.append(float(dfm.positions(cloth)[edge, 2].mean()))
        r = dfm.reactions()
        fl, fu = r[(lower, -1)][0], r[(upper, -1)][0]
        carried.append(-(fl[2] + fu[2]))
        squeeze.append(min(-fl[2], fu[2]))
    x = dfm.positions(cloth)
    drift = max(edge_z) - min(edge_z)
    pad_z = zc + 0.4
    weight = 2.0 * 0.3 * 0.08 * 9.81
    print(f"lowest vertex {x[:, 2].min() - TOP:.3f} m above the table; edge z drift over the hold {drift * 1e3:.2f} mm; "
          f"edge z {edge_z[-1]:.4f} m, pads {pad_z:.4f} m; pads carry {np.mean(carried[-120:]):.4f} N of {weight:.4f} N, "
          f"squeeze {min(squeeze):.2f} N")
    assert x[:, 2].min() > TOP + 0.02
    assert drift < 0.005
    assert abs(edge_z[-1] - pad_z) < 0.02
    # Each pad pushes the cloth (upper pad up, lower pad down: they squeeze) and together they carry
    # its weight (averaged over the last 0.5 s of a swinging strip; bound 5%).
    assert min(squeeze) > 0
    assert np.mean(carried[-120:]) == pytest.approx(weight, rel=0.05)
    assert dfm.messages() == []



URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "09_pybullet_gripper",
                    "two_finger_gripper.urdf")


@pytest.mark.parametrize("coupling", ["implicit", "explicit"])
def test_a_finger_link_moved_by_a_joint_motor_is_read_every_step(client, coupling):
    """Sample 09's URDF gripper: a small cloth lies on the lower finger's pad, then a velocity motor
    drives that finger (a link of an articulated body) up at 0.24 m/s (1 mm per 240 Hz step). The
    cloth rides 2.000 mm above the moving pad face (its contact radius), as at rest: read a step
    late it would sit 1 mm lower (measured 2.000 mm, implicit and explicit; bound 0.3 mm)."""
    dfm = dfm_pybullet.attach(client, backend="cpu", coupling=coupling)
    g = p.loadURDF(URDF, basePosition=[0, 0, 0.5], useFixedBase=True, physicsClientId=client)
    for joint, q in ((0, 0.0), (1, 0.14), (2, -0.1)):
        p.setJointMotorControl2(g, joint, p.POSITION_CONTROL, targetPosition=q, force=500, physicsClientId=client)
    step(client, 60)

    def face():
        return p.getLinkState(g, 2, physicsClientId=client)[4][2]  # the lower finger's frame: its pad face

    cloth = dfm.add_cloth(size=(0.03, 0.06), resolution=(4, 6), center=(-0.015, 0, face() + 0.0025), density=0.5)
    step(client, 60)
    p.setJointMotorControl2(g, 2, p.VELOCITY_CONTROL, targetVelocity=0.24, force=500, physicsClientId=client)
    above = []
    for _ in range(50):
        p.stepSimulation(physicsClientId=client)
        above.append(float(dfm.positions(cloth)[:, 2].mean()) - face())
    v = p.getLinkState(g, 2, computeLinkVelocity=1, physicsClientId=client)[6][2]
    print(f"{coupling}: finger at {v:.4f} m/s; cloth {np.mean(above[20:]) * 1e3:.3f} mm above the moving pad face")
    assert v == pytest.approx(0.24, rel=0.02)
    assert np.mean(above[20:]) == pytest.approx(0.002, abs=0.0003)
    assert dfm.messages() == []
