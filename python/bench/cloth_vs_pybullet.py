#!/usr/bin/env python3
"""pybullet's own mass-spring cloth and dfm's cloth in the same cloth-on-table scene, side by
side in one run: a 24 x 24 vertex cloth of 0.3 m x 0.3 m (0.09 kg) dropped from 5 mm onto a
static 0.5 m x 0.5 m box (top at 0.1 m) on the ground, 240 Hz. Each variant runs in its own
DIRECT client: pybullet's deformable world (RESET_USE_DEFORMABLE_WORLD, loadSoftBody of a
generated OBJ grid with useMassSpring, bending springs) and dfm through dfm_pybullet at
1 x 10 and 4 x 10 (substeps x iterations per 240 Hz step). Prints the wall-clock ms per
stepSimulation after a warm-up (the whole pybullet step: collision, the cloth, the plugin), and
the process CPU ms (summed over threads: pybullet steps on one, dfm's CPU backend on all cores), and
whether each cloth rests on the box: every vertex between 5 mm below and 20 mm above the top
(a cloth through the box ends 0.1 m lower, on the ground). Exits 1 if one does not rest.

    build-py/venv/bin/python python/bench/cloth_vs_pybullet.py            # ~1.5 min on 2 idle cores
    build-py/venv/bin/python python/bench/cloth_vs_pybullet.py --smoke    # 10 steps, ~2 s: runs, cloths on the box

Timings are this machine's: on shared cores they are noisy (print the load); compare within a run.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pybullet as p

N = 24  # vertices per side
SIZE = 0.3  # m
MASS = 0.09  # kg (1 kg/m^2)
TOP = 0.1  # table top, m
DROP = 0.005  # start height above the top, m
HALF = [0.25, 0.25, 0.05]  # table half extents, m
DT = 1.0 / 240.0


def table(c):
    """Ground plane and a static box whose top is at TOP."""
    p.setGravity(0, 0, -9.81, physicsClientId=c)
    p.setTimeStep(DT, physicsClientId=c)
    p.createMultiBody(0, p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c), physicsClientId=c)
    p.createMultiBody(0, p.createCollisionShape(p.GEOM_BOX, halfExtents=HALF, physicsClientId=c),
                      basePosition=[0, 0, HALF[2]], physicsClientId=c)


def write_grid_obj(path):
    """An N x N vertex grid of SIZE, centred at the origin in the z = 0 plane, as an OBJ file."""
    s = np.linspace(-SIZE / 2, SIZE / 2, N)
    with open(path, "w") as f:
        for y in s:
            for x in s:
                f.write(f"v {x:.6f} {y:.6f} 0\n")
        for j in range(N - 1):
            for i in range(N - 1):
                a = 1 + i + j * N
                b, c, d = a + 1, a + N, a + N + 1
                f.write(f"f {a} {b} {d}\nf {a} {d} {c}\n")


class PybulletCloth:
    """pybullet's deformable world with its mass-spring cloth: the parameters of pybullet's own
    cloth examples (bending springs, friction 0.5, face contact) with the spring stiffness and
    damping scaled from their 1 kg cloth to this 0.09 kg one (40 -> 4 N/m, 0.1 -> 0.01: the
    examples' 40 N/m on 0.16 g vertices blows the cloth up within 40 steps) and a collision
    margin of 2 mm, dfm's contact radius."""

    label = "pybullet mass-spring cloth"

    def __init__(self, obj):
        self.c = c = p.connect(p.DIRECT)
        p.resetSimulation(p.RESET_USE_DEFORMABLE_WORLD, physicsClientId=c)
        table(c)
        self.cloth = p.loadSoftBody(obj, basePosition=[0, 0, TOP + DROP], mass=MASS, useNeoHookean=0,
                                    useBendingSprings=1, useMassSpring=1, springElasticStiffness=4,
                                    springDampingStiffness=0.01, springDampingAllDirections=1, useSelfCollision=0,
                                    frictionCoeff=0.5, useFaceContact=1, collisionMargin=0.002, physicsClientId=c)

    def positions(self):
        n, xyz = p.getMeshData(self.cloth, -1, flags=p.MESH_DATA_SIMULATION_MESH, physicsClientId=self.c)
        return np.asarray(xyz, np.float64).reshape(n, 3)


class DfmCloth:
    """dfm's cloth through dfm_pybullet at `substeps` x 10 iterations, CPU backend by default."""

    def __init__(self, substeps, backend):
        import dfm_pybullet

        self.label = f"dfm {substeps} x 10 ({backend})"
        self.c = c = p.connect(p.DIRECT)
        table(c)
        self.dfm = dfm_pybullet.attach(c, backend=backend, substeps=substeps, iterations=10)
        self.cloth = self.dfm.add_cloth(size=(SIZE, SIZE), resolution=(N, N), center=(0, 0, TOP + DROP),
                                        density=MASS / SIZE**2)

    def positions(self):
        return self.dfm.positions(self.cloth).astype(np.float64)


def measure(sim, warmup, steps):
    """Wall-clock and process CPU ms per stepSimulation over `steps` after `warmup` steps, and
    the rest verdict (every vertex within [-5, +20] mm of the top) with z - top (m)."""
    for _ in range(warmup):
        p.stepSimulation(physicsClientId=sim.c)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        p.stepSimulation(physicsClientId=sim.c)
    ms = (time.perf_counter() - t0) * 1e3 / steps
    cpu_ms = (time.process_time() - c0) * 1e3 / steps
    z = sim.positions()[:, 2] - TOP
    rests = bool(z.min() > -0.005 and z.max() < 0.02)
    p.disconnect(physicsClientId=sim.c)
    return ms, cpu_ms, rests, z


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warmup", type=int, default=240, help="steps before timing (default 1 s)")
    ap.add_argument("--steps", type=int, default=240, help="timed steps (default 1 s)")
    ap.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"], help="dfm backend")
    ap.add_argument("--smoke", action="store_true", help="5 + 5 steps: the script runs and the cloths reach the box; timings meaningless")
    args = ap.parse_args(argv)
    if args.smoke:
        args.warmup, args.steps = 5, 5
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "cloth_24x24.obj")
        write_grid_obj(obj)
        sims = [lambda: PybulletCloth(obj), lambda: DfmCloth(1, args.backend), lambda: DfmCloth(4, args.backend)]
        print(f"cloth {N} x {N} of {SIZE} m ({MASS} kg) on a static box, 240 Hz; {args.warmup} warm-up steps, "
              f"{args.steps} timed")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"{'variant':<30} {'wall ms':>8} {'cpu ms':>7}  {'rests on the box':<17} {'z - top min/max (mm)':>21}")
        ok = True
        for make in sims:
            sim = make()
            ms, cpu_ms, rests, z = measure(sim, args.warmup, args.steps)
            ok &= rests
            print(f"{sim.label:<30} {ms:8.2f} {cpu_ms:7.2f}  {'yes' if rests else 'NO':<17} {z.min() * 1e3:10.2f} "
                  f"{z.max() * 1e3:10.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
