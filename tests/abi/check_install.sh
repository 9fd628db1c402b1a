#!/usr/bin/env bash
# Installs the built dfm into a scratch prefix, then builds and runs a consumer twice: with
# CMake's find_package(dfm) and with pkg-config. Usage: check_install.sh <build-dir> <scratch-dir>
set -euo pipefail
build=$1
scratch=$2
src=$(cd "$(dirname "$0")" && pwd)/consumer
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib:${LD_LIBRARY_PATH:-}" "$scratch/consumer/consumer"
libdir=$(ls -d "$scratch"/prefix/lib*/pkgconfig | head -n 1)
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs dfm)
cc -std=c11 "$src/main.c" $flags -o "$scratch/consumer_pc"
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$scratch/consumer_pc"
readelf -d "$(dirname "$libdir")/libdfm.so" | grep -q 'SONAME.*libdfm.so.1' || { echo "SONAME is not libdfm.so.1"; exit 1; }
echo "install: find_package and pkg-config consumers work; SONAME libdfm.so.1"
