#!/usr/bin/env bash
# The pybullet stage of tests/run-all.sh: builds the Python package dfm_pybullet (python/: dfm,
# CPU only, and the physics-server plugin, with scikit-build-core) into a virtual environment
# under build-py/venv, with PyPI's pybullet 3.2.7, numpy and pytest, and runs python/tests.
# Nothing is installed outside build-py/. Needs PyPI and a CPython with a pybullet 3.2.7 wheel
# (cp36..cp311, x86_64 Linux): the 80 MB source build is refused (--only-binary) rather than
# started. About 2.5 minutes on 2 shared cores from scratch (docs/pybullet.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
venv=build-py/venv
python=${DFM_PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip -q --disable-pip-version-check)
# The build tools live in the venv too, so the package builds without build isolation (no
# per-build download of scikit-build-core).
"${pip[@]}" install --only-binary pybullet 'pybullet==3.2.7' numpy pytest 'scikit-build-core>=0.10'
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}
"${pip[@]}" install --no-build-isolation --no-deps --force-reinstall ./python
# Run from python/tests so the installed package (not a source tree) is what is imported.
cd python/tests
"$root/$venv/bin/python" -m pytest -q -p no:cacheprovider .
