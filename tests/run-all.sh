#!/usr/bin/env bash
# Runs the whole dfm test suite on a fresh machine:
#  1. installs what is missing (tests/install-deps.sh),
#  2. configures and builds (CUDA parts too when nvcc is present) into build/,
#  3. runs every CTest (GPU tests skip with code 77 where no GPU is present),
#  3b. builds the Python package dfm_pybullet into build-py/venv with PyPI's pybullet 3.2.7 and
#     runs its pytest suite (tests/pybullet/run-pytest.sh; skip with --no-pybullet),
#  4. builds again with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and runs
#     the cpu and abi tests under them (skip with --no-sanitize),
#  5. builds the libFuzzer harness of the ABI (Clang, ASan + UBSan) into build-fuzz/ and runs
#     DFM_FUZZ_RUNS (default 2500) mutations of tests/fuzz/corpus with a fixed seed; fails on any
#     crash, leak, hang or UB (skip with --no-fuzz).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sanitize=1
fuzz=1
pybullet=1
for arg in "$@"; do
  case "$arg" in
    --no-sanitize) sanitize=0 ;;
    --no-fuzz) fuzz=0 ;;
    --no-pybullet) pybullet=0 ;;
    *) echo "usage: tests/run-all.sh [--no-sanitize] [--no-fuzz] [--no-pybullet]"; exit 2 ;;
  esac
done
jobs=$(nproc 2>/dev/null || echo 2)
tests/install-deps.sh
cmake --preset default -DDFM_BUILD_TESTS=ON   # explicit: samples/run-demo.sh configures the same dir without tests
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"
if [ "$pybullet" = 1 ]; then
  tests/pybullet/run-pytest.sh
fi
if [ "$sanitize" = 1 ]; then
  cmake --preset asan
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs"
fi
if [ "$fuzz" = 1 ]; then
  tests/fuzz/run-fuzz.sh "${DFM_FUZZ_RUNS:-2500}"
fi
echo "run-all: all test stages passed"
