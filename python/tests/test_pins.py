"""Pins and kinematic targets from Python (World.set_pinned / set_dynamic /
set_kinematic_targets, dfm_body_set_vertex_mode and dfm_body_set_kinematic_targets).

1. A horizontal 0.3 m cloth pinned at the two corners of one edge swings down and back for 1 s
   (its swing takes about that): the pinned vertices have not moved (to float precision), no
   other vertex rises above the pins by more than 2 mm (the swing bends the cloth a little past
   the pin line), the free vertices average more than 0.05 m below the pins over the second, and
   the lowest reaches between 0.2 and 0.45 m below them (the cloth's length; a free cloth falls
   4.9 m); released (set_dynamic), the corners fall.
2. The same corners as kinematic vertices carried 5 cm along x in 48 steps: after every step each
   is at its target (1e-5 m); held there 0.5 s, the cloth's centre has followed (within 1 cm).
3. Bad lists: an index out of range raises DfmError with dfm's message, floats a TypeError,
   targets of the wrong shape a ValueError.
Measured (CPU, 4 x 10): 1. pinned corners moved 0.0 m, highest free vertex 0.9 mm above them,
mean depth 0.083 m, lowest 0.301 m below; 2. the centre moved 0.052 m along x."""

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from conftest import step

Z = 0.5  # m


def hanging_cloth(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    cloth = dfm.add_cloth(size=(0.3, 0.3), resolution=(13, 13), center=(0, 0, Z))
    x0 = dfm.positions(cloth)
    edge = np.flatnonzero(np.isclose(x0[:, 1], x0[:, 1].min()))
    corners = [int(edge[np.argmin(x0[edge, 0])]), int(edge[np.argmax(x0[edge, 0])])]
    return dfm, cloth, x0, corners


def test_cloth_pinned_at_two_corners_hangs_below_them(client):
    dfm, cloth, x0, corners = hanging_cloth(client)
    dfm.set_pinned(cloth, corners)
    free = np.setdiff1d(np.arange(cloth.vertex_count), corners)
    lowest, highest_free, mean_depth = [], [], []
    for _ in range(240):  # 1 s: the cloth swings down from horizontal and back (its swing is ~1 s)
        p.stepSimulation(physicsClientId=client)
        x = dfm.positions(cloth)
        lowest.append(Z - float(x[:, 2].min()))
        highest_free.append(float(x[free, 2].max()))
        mean_depth.append(Z - float(x[free, 2].mean()))
    moved = float(np.abs(x[corners] - x0[corners]).max())
    print(f"pinned corners moved {moved} m; lowest vertex {max(lowest):.3f} m below the pins (swing), "
          f"mean depth over the second {np.mean(mean_depth):.3f} m; highest free vertex {max(highest_free[1:]) - Z:.4f} m above them")
    assert moved < 1e-6
    assert max(highest_free[1:]) < Z + 0.002  # below the pins (within the 2 mm contact radius: the swing bends it)
    assert np.mean(mean_depth) > 0.05  # hangs (swinging) below the pins; a flat pinned cloth would read ~0
    assert 0.2 < max(lowest) < 0.45  # swings down by about its length and no further (a free cloth falls 4.9 m)
    dfm.set_dynamic(cloth, corners)
    step(client, 60)
    assert dfm.positions(cloth)[corners, 2].max() < Z - 0.1  # released: 0.25 s of fall


def test_kinematic_corners_carry_the_cloth(client):
    dfm, cloth, x0, corners = hanging_cloth(client)
    dfm.set_pinned(cloth, corners)
    step(client, 120)
    centre0 = dfm.positions(cloth).mean(axis=0)
    for i in range(48):
        target = x0[corners] + np.array([0.05 * (i + 1) / 48, 0, 0], np.float32)
        dfm.set_kinematic_targets(cloth, corners, target)
        p.stepSimulation(physicsClientId=client)
        assert np.abs(dfm.positions(cloth)[corners] - target).max() < 1e-5
    step(client, 120)
    shift = dfm.positions(cloth).mean(axis=0) - centre0
    print(f"centre moved {shift} m")
    assert shift[0] == pytest.approx(0.05, abs=0.01)


def test_bad_vertex_lists_raise(client):
    dfm, cloth, _, corners = hanging_cloth(client)
    with pytest.raises(dfm_pybullet.DfmError, match="the body has 169 vertices") as e:
        dfm.set_pinned(cloth, [0, 169])
    assert e.value.name == "DFM_ERROR_INDEX_OUT_OF_RANGE"
    with pytest.raises(TypeError, match="indices must be a sequence of ints"):
        dfm.set_pinned(cloth, [0.5, 1.0])
    with pytest.raises(ValueError, match=r"targets must be \(2, 3\)"):
        dfm.set_kinematic_targets(cloth, corners, [[0, 0, 0]])
