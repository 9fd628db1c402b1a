#!/usr/bin/env bash
# Builds the ABI fuzzer (preset fuzz: Clang, libFuzzer, ASan + UBSan) and runs it over a scratch
# copy of the corpus kept in tests/fuzz/corpus (libFuzzer adds what it finds to its first corpus
# directory; the tracked one stays untouched). Fails on any crash, leak, timeout (a hang: 25 s per
# input), out-of-memory or UB report, leaving the crashing input in build-fuzz/.
#   tests/fuzz/run-fuzz.sh [runs]         (default 2500 mutations with seed 1: the same inputs on
#                                          every run, so CI does not turn red on a new find)
#   tests/fuzz/run-fuzz.sh --seconds S    (explore for S seconds with a random seed; add what it
#                                          finds to the corpus with -merge=1 after fixing it)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mode=(-seed=1 -runs="${1:-2500}")
label="${1:-2500} runs (seed 1)"
if [ "${1:-}" = "--seconds" ]; then
  mode=(-max_total_time="${2:?seconds}")
  label="$2 s"
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc 2>/dev/null || echo 2)"
work=build-fuzz/corpus-run
rm -rf "$work" && mkdir -p "$work"
cp tests/fuzz/corpus/* "$work"/
cd build-fuzz
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
./tests/fuzz/fuzz_abi "${mode[@]}" -timeout=25 -rss_limit_mb=4096 -max_len=4096 \
  -print_final_stats=1 corpus-run 2>&1 | tail -n 40
echo "run-fuzz: no crash, leak, hang or UB in $label"
