#!/usr/bin/env bash
# Installs what is missing, builds dfm and runs the main demo (GPU when present, else CPU).
# Output frames go to out/<sample>/ under the repository. Extra arguments go to the sample.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tests/install-deps.sh
cmake --preset default -DDFM_BUILD_TESTS=OFF >/dev/null
cmake --build --preset default -j "$(nproc 2>/dev/null || echo 2)"
demo=03_gripper_lift
echo "running $demo (backend auto: the CPU until contacts run on the CUDA backend)"
./build/samples/$demo --backend auto --out "$root/out/$demo" "$@"
echo "frames: $root/out/$demo/*.obj"
