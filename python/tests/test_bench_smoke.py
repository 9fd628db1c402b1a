"""The benchmark python/bench/cloth_vs_pybullet.py in its smoke mode (5 + 5 steps, about 2 s):
both pybullet's mass-spring cloth and dfm's (1 x 10 and 4 x 10) build, step and reach the box
top without passing it (every vertex within [-5, +20] mm of the top; the script exits 1
otherwise). No timing is asserted."""

import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "cloth_vs_pybullet.py")


def test_benchmark_smoke_runs_both_cloths_on_the_box():
    run = subprocess.run([sys.executable, BENCH, "--smoke", "--backend", "cpu"], capture_output=True, text=True,
                         timeout=120)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith(("pybullet mass-spring", "dfm "))]
    assert len(rows) == 3 and all(" yes " in r for r in rows), run.stdout
