#!/usr/bin/env bash
# Installs what is missing, builds dfm and runs the main demo (GPU when present, else CPU): the
# Bullet gripper (samples/07_bullet_gripper) lifting a cloth off a Bullet table, or, where Bullet
# could not be installed, the pure-ABI gripper (samples/03_gripper_lift).
# Output goes to out/<sample>/ under the repository. Extra arguments go to the sample.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tests/install-deps.sh || echo "run-demo: could not install every dependency; continuing with what is there"
cmake --preset default -DDFM_BUILD_TESTS=OFF >/dev/null
cmake --build --preset default -j "$(nproc 2>/dev/null || echo 2)"
if [ -x ./build/samples/07_bullet_gripper ]; then
  demo=07_bullet_gripper
  echo "running $demo: dfm attached to a Bullet btDiscreteDynamicsWorld (backend auto)"
  ./build/samples/$demo --object cloth --backend auto --out "$root/out/$demo" "$@"
  echo "picture: $root/out/$demo/final.png"
  echo "frames:  $root/out/$demo/*.obj"
else
  demo=03_gripper_lift
  echo "Bullet was not found (pkg-config bullet); running the pure-ABI gripper $demo instead (backend auto)"
  ./build/samples/$demo --backend auto --out "$root/out/$demo" "$@"
  echo "frames: $root/out/$demo/*.obj"
fi
