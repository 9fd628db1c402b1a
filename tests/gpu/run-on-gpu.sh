#!/usr/bin/env bash
# The one command for the GPU machine: configure (sm_90, CUDA required), build, run the gpu and
# parity tests, compute-sanitizer memcheck and racecheck on a small scene, a short benchmark, and
# print a compact table last. Logs go to $OUT (or build-gpu/out) when set.
#   tests/gpu/run-on-gpu.sh [bench envs...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/build-gpu/out}/logs
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
status=()
step() { # step NAME COMMAND...: runs, logs to $out/NAME.log, records PASS/FAIL
  local name=$1; shift
  local t0=$(date +%s)
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then status+=("$name|PASS|$(( $(date +%s) - t0 ))s"); return 0; fi
  status+=("$name|FAIL (rc $rc)|$(( $(date +%s) - t0 ))s"); tail -n 40 "$out/$name.log"; return 1
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1 || true
step configure cmake --preset gpu -DDFM_BUILD_SAMPLES=ON || { printf '%s\n' "${status[@]}"; exit 1; }
step build cmake --build --preset gpu -j "$(nproc)" || { printf '%s\n' "${status[@]}"; exit 1; }
step ctest_gpu ctest --test-dir build-gpu -L 'gpu|parity' -V
# The CPU backend's physics tests (label cpu) on the CUDA backend in deterministic mode: their
# physical assertions, not parity. Informational: tests that are about the CPU itself (thread
# counts, host bitwise determinism) may legitimately differ.
DFM_TEST_BACKEND=cuda step cpu_tests_on_gpu ctest --test-dir build-gpu -L cpu -E 'test_threads' --output-on-failure
san=$(command -v compute-sanitizer || true)
if [ -n "$san" ]; then
  step memcheck "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_parity --small
  step racecheck "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_parity --small
  step memcheck_contacts "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_contact_parity --small
  step racecheck_contacts "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_contact_parity --small
else
  status+=("sanitizer|MISSING|-")
fi
step bench build-gpu/tests/gpu/bench_gpu_vbd "${@:-1 64 1024}"
step gripper_gpu build-gpu/samples/03_gripper_lift --backend auto --every 1000 --out "$out/gripper"
bench=build-gpu/samples/dfm_bench
step bench_lift timeout 240 "$bench" --workload both --envs "${DFM_BENCH_ENVS:-1024}" --backend cuda --json "$out/bench_lift.json"
if [ "${DFM_ATTRIBUTION:-0}" = 1 ]; then
  step attribution timeout 240 "$bench" --workload both --envs "${DFM_BENCH_ENVS:-1024}" --backend cuda --attribution \
    --json "$out/attribution.json"
fi
if [ "${DFM_SCALING:-0}" = 1 ]; then
  step scaling timeout 200 "$bench" --workload both --backend cuda --scaling --json "$out/scaling.json"
fi
echo
echo "GPU: $(cat "$out/gpu.txt")"
grep -h "max |x_gpu\|bitwise\|default vs\|drape: two" "$out/ctest_gpu.log" | sed 's/^[0-9]*: //' || true
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out"/memcheck.log "$out"/racecheck.log 2>/dev/null || true
cat "$out/bench.log"
tail -n 30 "$out/bench_lift.log" 2>/dev/null || true
[ -f "$out/attribution.log" ] && tail -n 40 "$out/attribution.log"
[ -f "$out/scaling.log" ] && grep -a "^|" "$out/scaling.log"
tail -n 2 "$out/gripper_gpu.log"
echo
echo "| step | result | time |"
echo "|---|---|---|"
for s in "${status[@]}"; do echo "| ${s//|/ | } |"; done
# One archive instead of many files (the device tool returns a limited number of files).
if [ -n "${OUT:-}" ]; then tar -C "$OUT" -czf "$OUT/gpu-logs.tgz" logs && rm -rf "$OUT/logs"; fi
