"""Two DIRECT clients in one process each load the plugin (the same library file: one instance
per physics server) and run their own scene, stepped in turn: each cloth rests on its own box,
whose heights differ, and each ground carries its own box and cloth."""

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from conftest import box, ground


def test_two_clients_work_side_by_side():
    clients = [p.connect(p.DIRECT) for _ in range(2)]
    try:
        scenes = []
        for i, c in enumerate(clients):
            p.setGravity(0, 0, -9.81, physicsClientId=c)
            dfm = dfm_pybullet.attach(c, backend="cpu")
            plane = ground(c)
            half_z = 0.05 * (i + 1)  # box tops at 0.1 m and 0.2 m
            b = box(c, 0.5, [0.15, 0.15, half_z], [0, 0, half_z])
            cloth = dfm.add_cloth(size=(0.2, 0.2), resolution=(9, 9), center=(0, 0, 2 * half_z + 0.004),
                                  density=2.0)
            scenes.append((c, dfm, plane, b, cloth, 2 * half_z))
        assert scenes[0][1]._key != scenes[1][1]._key
        for _ in range(240):
            for c, *_ in scenes:
                p.stepSimulation(physicsClientId=c)
        for c, dfm, plane, b, cloth, top in scenes:
            z = dfm.positions(cloth)[:, 2]
            assert np.all(np.abs(z - (top + 0.002)) < 0.002), (top, z.min(), z.max())
            force = sum(cp[9] for cp in p.getContactPoints(b, plane, physicsClientId=c))
            assert force == pytest.approx((0.5 + 2.0 * 0.04) * 9.81, rel=0.01)
            assert dfm.tick_count == 240
    finally:
        for c in clients:
            p.disconnect(physicsClientId=c)
