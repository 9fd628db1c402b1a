#!/usr/bin/env bash
# Installs what building and testing dfm needs, where missing (Debian/Ubuntu, apt-get).
# Needs: a C/C++ compiler, cmake >= 3.24, ninja, pkg-config, binutils (nm/readelf).
set -euo pipefail
need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v nm >/dev/null 2>&1 || need+=(binutils)
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev openmpi-bin)   # samples/mpi_cloth_lift (label mpi)
command -v clang >/dev/null 2>&1 || need+=(clang)                        # the libFuzzer harness (tests/fuzz)
command -v clang-format >/dev/null 2>&1 || need+=(clang-format)          # the style check (tests/style)
# The pybullet stage (tests/pybullet/run-pytest.sh) makes a virtual environment under build-py/.
command -v python3 >/dev/null 2>&1 || need+=(python3)
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need+=(python3-venv)
fi
# The Bullet adapter (adapters/bullet, label adapter): Debian's Bullet (float + float64) and libpng
# for the Bullet samples' pictures. Checked through pkg-config, as CMake finds them.
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists bullet bullet-float64; then need+=(libbullet-dev); fi
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libpng; then need+=(libpng-dev); fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi
cmake_version=$(cmake --version | head -n 1 | awk '{print $3}')
if [ "$(printf '%s\n3.24\n' "$cmake_version" | sort -V | head -n 1)" != "3.24" ]; then
  echo "cmake $cmake_version is too old (need >= 3.24); installing a newer one from PyPI"
  python3 -m pip install -q 'cmake>=3.24'
fi
