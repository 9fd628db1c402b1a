#!/usr/bin/env bash
# Installs the built dfm into a scratch prefix, then builds and runs a consumer twice: with
# CMake's find_package(dfm) and with pkg-config; the same for the Bullet adapter where it was built.
# Usage: check_install.sh <build-dir> <scratch-dir>
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
dyn=$(readelf -d "$(dirname "$libdir")/libdfm.so")
case "$dyn" in *"SONAME"*"libdfm.so.1"*) ;; *) echo "SONAME is not libdfm.so.1"; exit 1 ;; esac
msg="install: find_package and pkg-config consumers work; SONAME libdfm.so.1"
# The Bullet adapter, where it was built: an installed target (find_package gives dfm::dfm_bullet),
# a .pc file, and a RUNPATH that finds libdfm.so.1 next to it without LD_LIBRARY_PATH.
lib=$(dirname "$libdir")
if [ -f "$lib/libdfm_bullet.so.1" ]; then
  # ldd's output is captured first: piped into grep -q, ldd could die of SIGPIPE when grep
  # stopped reading early, and pipefail then failed a correct library (seen once under ctest -j2).
  deps=$(env -u LD_LIBRARY_PATH ldd "$lib/libdfm_bullet.so.1")
  case "$deps" in
    *"libdfm.so.1 => $lib/libdfm.so.1"*) ;;
    *) echo "libdfm_bullet.so.1 does not find $lib/libdfm.so.1 by itself"; echo "$deps"; exit 1 ;;
  esac
  cmake -S "$src/../consumer_bullet" -B "$scratch/consumer_bullet" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
  cmake --build "$scratch/consumer_bullet" >/dev/null
  env -u LD_LIBRARY_PATH "$scratch/consumer_bullet/consumer_bullet"
  bflags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs dfm-bullet)
  cc -std=c11 "$src/../consumer_bullet/main.c" $bflags -o "$scratch/consumer_bullet_pc"
  LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" "$scratch/consumer_bullet_pc"
  msg="$msg; Bullet adapter: find_package (dfm::dfm_bullet), pkg-config (dfm-bullet) and RUNPATH work"
fi
echo "$msg"
