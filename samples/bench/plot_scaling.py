#!/usr/bin/env python3
"""Plots env-steps/s and ms per env step against environments from a `dfm_bench --scaling` JSON.

Usage: plot_scaling.py bench.json scaling.png   (needs matplotlib: pip install matplotlib)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    runs = [r for r in json.load(open(sys.argv[1]))["runs"] if "envs" in r]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for workload in sorted({r["workload"] for r in runs}):
        rs = sorted((r for r in runs if r["workload"] == workload), key=lambda r: r["envs"])
        envs = [r["envs"] for r in rs]
        label = f"{workload} ({rs[0]['backend']})"
        a.plot(envs, [r["env_steps_per_s"] for r in rs], "o-", label=label)
        b.plot(envs, [r["wall_ms_per_env_step"] for r in rs], "o-", label=label)
    for ax, ylabel in ((a, "env-steps / s"), (b, "wall ms per env step")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("environments")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("dfm_bench scaling")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)
    print(f"wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
