#!/usr/bin/env bash
# The one command for the GPU machine: configure (sm_90, CUDA required), build, run the gpu and
# parity tests, compute-sanitizer memcheck and racecheck on a small scene, a short benchmark, and
# print a compact table last. Logs go to $OUT (or build-gpu/out) when set.
#   tests/gpu/run-on-gpu.sh [bench envs...]
# DFM_GPU_PHASES picks phases (default: build tests sanitize bench mpi; `sanitize_slow` adds the
# racecheck runs of the block-per-body kernels (~8 min); `fold` runs the cloth-fold benchmark at 1,
# 64 and 1024 environments with and without self-collision; `sweep` adds the solve's
# block-size sweep and the tiled/serial threshold check, docs/perf.md; `grip` runs sample 03 on
# CUDA several times per setting (DFM_GRIP_PARALLEL at once) and counts how often the cloth is held; `repeat` runs the chaotic
# parity tests DFM_REPEAT_RUNS times (DFM_REPEAT_PARALLEL at once) and counts the passes; `bodysweep` benchmarks
# DFM_CUDA_BODY_SWEEP=0, 1, 2, 3 at DFM_BODY_SWEEP_ENVS, default 1 and 1024; `cputhreads` runs the
# CPU backend's thread targets of issue 18, cloth-lift and soft-lift at 16 environments, cloth-lift
# at 1 and game-cloth 24 at 240 Hz, each on DFM_CPUTHREADS (default "1 2") threads with the dfm_bench
# of DFM_CPUTHREADS_BUILD (default build-gpu; a CPU-only build works: the phase needs no GPU), and
# prints their table last; DFM_CPUTHREADS_BIND="none spread" adds runs with OMP_PLACES=cores
# OMP_PROC_BIND=spread and records lscpu; DFM_CPUTHREADS_REPEAT=N interleaves N rounds, medians). A later call on a warm machine can skip `build` (the build tree is kept
# between calls).
# MPI: the GPU machine has none; tests/gpu/fetch-mpi.sh (run here) packs Open MPI from PyPI into
# .mpi/, which the device call carries; the mpi phase then builds samples/mpi_cloth_lift and runs
# it with 1 rank x DFM_MPI_ENVS (default 1024) and, with 2 or more GPUs, 2 ranks x DFM_MPI_ENVS.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# Logs are written outside $OUT and packed into $OUT/gpu-logs.tgz after every step (the device
# tool returns a few files only, and nothing that a killed run left unpacked).
if [ -n "${OUT:-}" ]; then out=/tmp/dfm-gpu-logs/logs; rm -rf "$out"; else out=$root/build-gpu/out/logs; fi
mkdir -p "$out"
pack() { if [ -n "${OUT:-}" ]; then tar -C "$(dirname "$out")" -czf "$OUT/gpu-logs.tgz" logs; fi; }
export PATH=/usr/local/cuda/bin:$PATH
status=()
step() { # step NAME COMMAND...: runs, logs to $out/NAME.log, records PASS/FAIL
  local name=$1; shift
  local t0=$(date +%s)
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  pack
  if [ $rc -eq 0 ]; then status+=("$name|PASS|$(( $(date +%s) - t0 ))s"); return 0; fi
  status+=("$name|FAIL (rc $rc)|$(( $(date +%s) - t0 ))s"); tail -n 40 "$out/$name.log"; return 1
}
phases=" ${DFM_GPU_PHASES:-build tests sanitize bench mpi} "
has() { [[ "$phases" == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt" 2>&1 || true
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
mpi_args=()
if ! command -v mpicc >/dev/null && [ -f "$root/.mpi/openmpi-prefix.tgz" ]; then
  rm -rf /tmp/dfm-ompi && mkdir -p /tmp/dfm-ompi && tar -C /tmp/dfm-ompi -xzf "$root/.mpi/openmpi-prefix.tgz"
  export OPAL_PREFIX=/tmp/dfm-ompi/prefix PATH=/tmp/dfm-ompi/prefix/bin:$PATH
  mpi_args=(-DMPI_C_COMPILER=$OPAL_PREFIX/bin/mpicc -DMPIEXEC_EXECUTABLE=$OPAL_PREFIX/bin/mpiexec)
fi
if has build; then
  step configure cmake --preset gpu -DDFM_BUILD_SAMPLES=ON "${mpi_args[@]}" || { printf '%s\n' "${status[@]}"; exit 1; }
  step build cmake --build --preset gpu -j "$(nproc)" || { printf '%s\n' "${status[@]}"; exit 1; }
fi
if has tests; then
step ctest_gpu ctest --test-dir build-gpu -L 'gpu|parity' -V -j "${DFM_CTEST_JOBS:-6}"
# The CPU backend's physics tests (label cpu) on the CUDA backend in deterministic mode: their
# physical assertions, not parity. Informational: tests that are about the CPU itself (thread
# counts, host bitwise determinism) may legitimately differ.
DFM_TEST_BACKEND=cuda step cpu_tests_on_gpu ctest --test-dir build-gpu -L cpu -E 'test_threads' --output-on-failure \
  -j "${DFM_CTEST_JOBS:-6}"
fi
san=$(command -v compute-sanitizer || true)
if ! has sanitize; then :
elif [ -n "$san" ]; then
  step memcheck "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_parity --small
  step racecheck "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_parity --small
  step memcheck_contacts "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_contact_parity --small
  step racecheck_contacts "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_contact_parity --small
  step memcheck_bvh "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_bvh --small
  step racecheck_bvh "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_bvh --small
  # Deformable-deformable contact on CUDA (issue 16): guess bound, sub-colour solve, final forces
  # and their body-graph balance (three stacked cubes: the sums, the host solve, the spread).
  step memcheck_deform "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_deform_contact_parity --small
  step racecheck_deform "$san" --tool racecheck --error-exitcode 1 \
    build-gpu/tests/gpu/test_gpu_deform_contact_parity --small
  # The per-body sweeps (DFM_CUDA_BODY_SWEEP=1, 2 and 3: shared-memory staging, block barriers per
  # color). Here the resident sweep (mode 3: element data staged too) in `--sanitize`, the shortest
  # run through its kernels (the --resident-only run did not finish in 7 minutes under racecheck);
  # racecheck runs `--race` (mode 3 alone, no per-color references: with them racecheck did not
  # finish in 150 s). Each tool is cut at 200 s so that the steps after it still run. Every mode and
  # scene: phase `sanitize_sweep` below.
  step racecheck_resident timeout 200 "$san" --tool racecheck --error-exitcode 1 \
    build-gpu/tests/gpu/test_gpu_body_sweep --race
  step synccheck_resident timeout 200 "$san" --tool synccheck --error-exitcode 1 \
    build-gpu/tests/gpu/test_gpu_body_sweep --sanitize
  step memcheck_resident timeout 200 "$san" --tool memcheck --error-exitcode 1 \
    build-gpu/tests/gpu/test_gpu_body_sweep --sanitize
  # The body-level solve's kernels (DFM_FEATURE_BODY_TRANSLATION): free fall, and the pinch scene.
  DFM_TEST_BACKEND=cuda step memcheck_body "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/abi/test_feature_flags
  DFM_TEST_BACKEND=cuda step racecheck_body "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/abi/test_feature_flags
  # The pinch on CUDA with the feature (a plain test since session 15): the step passes on the sanitizer's
  # summary, not the test's exit code (4 x 2 is too few sweeps for its bounds).
  DFM_TEST_BACKEND=cuda DFM_TEST_FEATURES=body step memcheck_body_pinch bash -c "'$san' --tool memcheck \
    build-gpu/tests/physics/test_physics_pinch 4 2 2>&1 | tee /dev/stderr | grep -q 'ERROR SUMMARY: 0 errors'"
  # The per-patch Coulomb decision (patch_friction_block_kernel, the serial patch_friction_kernel,
  # patch_friction_attribute_kernel): memcheck on the pinch at 4 x 2 (short), racecheck and synccheck
  # on test_gpu_patch_friction (both paths, three scenes).
  DFM_TEST_BACKEND=cuda step memcheck_patch bash -c "'$san' --tool memcheck \
    build-gpu/tests/physics/test_physics_pinch 4 2 2>&1 | tee /dev/stderr | grep -q 'ERROR SUMMARY: 0 errors'"
  step racecheck_patch timeout 200 "$san" --tool racecheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_patch_friction
  step synccheck_patch timeout 200 "$san" --tool synccheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_patch_friction
  # The host-body coupling's kernels (block per body, shape placement, bucketing).
  DFM_TEST_BACKEND=cuda step memcheck_coupling "$san" --tool memcheck --error-exitcode 1 \
    build-gpu/tests/physics/test_physics_heavy_hammock --small
else
  status+=("sanitizer|MISSING|-")
fi
# The full sweep runs under the sanitizers (modes 1-3, every scene): phase `sanitize_sweep` (slow).
if ! has sanitize_sweep || [ -z "$san" ]; then :
else
  step memcheck_sweep "$san" --tool memcheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_body_sweep --small
  step racecheck_sweep "$san" --tool racecheck --error-exitcode 1 \
    build-gpu/tests/gpu/test_gpu_body_sweep --small
  step synccheck_sweep "$san" --tool synccheck --error-exitcode 1 build-gpu/tests/gpu/test_gpu_body_sweep --small
fi
# The slow sanitizer runs (racecheck of the coupling's and the body-level solve's block-per-body
# kernels: ~4 min each on the H200), phase `sanitize_slow`, not in the default phases.
if ! has sanitize_slow; then :
elif [ -n "$san" ]; then
  DFM_TEST_BACKEND=cuda step racecheck_coupling "$san" --tool racecheck --error-exitcode 1 \
    build-gpu/tests/physics/test_physics_heavy_hammock --small
  # The block-per-body kernel under racecheck (the pinch on CUDA is a known failure of the physics,
  # so the step passes on the sanitizer's summary, not the test's exit code).
  DFM_TEST_BACKEND=cuda DFM_TEST_FEATURES=body step racecheck_body_pinch bash -c "'$san' --tool racecheck \
    build-gpu/tests/physics/test_physics_pinch 2 1 2>&1 | tee /dev/stderr | grep -q 'RACECHECK SUMMARY: 0 hazards'"
else
  status+=("sanitizer|MISSING|-")
fi
if has bench; then
step bench build-gpu/tests/gpu/bench_gpu_vbd "${@:-1 64 1024}"
step gripper_gpu build-gpu/samples/03_gripper_lift --backend auto --every 1000 --out "$out/gripper"
bench=build-gpu/samples/dfm_bench
step bench_lift timeout 240 "$bench" --workload both --envs "${DFM_BENCH_ENVS:-1024}" --backend cuda --json "$out/bench_lift.json"
step bench_cloth_fold timeout 240 "$bench" --workload cloth-fold --envs 1 --backend cuda --json "$out/bench_cloth_fold.json"
step bench_lift_body timeout 240 "$bench" --workload both --envs "${DFM_BENCH_ENVS:-1024}" --backend cuda \
  --body-translation --json "$out/bench_lift_body.json"
if [ "${DFM_ATTRIBUTION:-0}" = 1 ]; then
  step attribution timeout 240 "$bench" --workload both --envs "${DFM_BENCH_ENVS:-1024}" --backend cuda --attribution \
    --json "$out/attribution.json"
fi
if [ "${DFM_SCALING:-0}" = 1 ]; then
  step scaling timeout 200 "$bench" --workload both --backend cuda --scaling --json "$out/scaling.json"
fi
fi
if has sweep; then
  bench=build-gpu/samples/dfm_bench
  for blk in ${DFM_SWEEP_BLOCKS-64 128 256 512}; do
    DFM_CUDA_SOLVE_BLOCK=$blk step "sweep_block_$blk" timeout 150 "$bench" --workload both --envs 1024 --backend cuda \
      --windows 3 --quiet --json "$out/sweep_block_$blk.json"
  done
  for envs in ${DFM_SWEEP_ENVS-16 64 256}; do
    for mode in serial tiled; do
      thr=0; [ "$mode" = tiled ] && thr=2147483647
      DFM_CUDA_TILED_MAX=$thr step "sweep_${mode}_$envs" timeout 150 "$bench" --workload both --envs "$envs" \
        --backend cuda --windows 3 --quiet --json "$out/sweep_${mode}_$envs.json"
    done
  done
fi
if has bodysweep; then
  bench=build-gpu/samples/dfm_bench
  for envs in ${DFM_BODY_SWEEP_ENVS-1 1024}; do
    for mode in 0 1 2 3; do
      DFM_CUDA_BODY_SWEEP=$mode step "sweep_body${mode}_$envs" timeout 150 "$bench" --workload both --envs "$envs" \
        --backend cuda --windows 3 --json "$out/sweep_body${mode}_$envs.json"
    done
  done
fi
if has fold; then
  # cloth-fold (issue 16): deformable contact with and without self-collision, and the plain cloth
  # (world radius 0), at DFM_FOLD_ENVS environments; the table at the end prints the ratios.
  bench=build-gpu/samples/dfm_bench
  for envs in ${DFM_FOLD_ENVS-1 64 1024}; do
    for v in on:"" noself:--no-self-collision off:--no-deformable-contact; do
      name=${v%%:*}; arg=${v#*:}
      # shellcheck disable=SC2086
      step "fold_${name}_$envs" timeout 150 "$bench" --workload cloth-fold --envs "$envs" --backend cuda --quiet \
        $arg ${DFM_FOLD_ARGS:-} --json "$out/fold_${name}_$envs.json"
    done
  done
fi
if has grip; then
  g03=build-gpu/samples/03_gripper_lift
  IFS=';' read -r -a settings <<< "${DFM_GRIP_SETTINGS:-default|;squeeze_2mm|--squeeze 2;deterministic|--deterministic}"
  for setting in "${settings[@]}"; do
    name=${setting%%|*}; args=${setting#*|}; runs=${DFM_GRIP_RUNS:-4}
    [ "$name" = deterministic ] && runs=2
    held=0
    # DFM_GRIP_PARALLEL runs at once (default 1; the GPU is shared, each run's outcome is its own:
    # default mode's run-to-run variation is what is counted). Each run writes its own log.
    par=${DFM_GRIP_PARALLEL:-1}
    for i in $(seq "$runs"); do
      # shellcheck disable=SC2086
      ( "$g03" --backend cuda --every 1000 --out "$out/grip_$i" $args > "$out/grip_${name}_$i.log" 2>&1
        echo "rc $?" >> "$out/grip_${name}_$i.log" ) &
      if [ $((i % par)) -eq 0 ]; then wait; fi
    done
    wait
    for i in $(seq "$runs"); do grep -q '^rc 0$' "$out/grip_${name}_$i.log" && held=$((held + 1)); done
    status+=("grip_$name|held $held of $runs|-")
    pack
  done
fi
if has repeat; then
  # Parity tests of chaotic scenes compare physical outcomes only; their bounds must hold in every
  # run (issue 13: 10 GPU runs). DFM_REPEAT_TESTS names the test binaries (relative to build-gpu/tests).
  for t in ${DFM_REPEAT_TESTS:-gpu/test_gpu_contact_parity}; do
    runs=${DFM_REPEAT_RUNS:-10}; ok=0
    par=${DFM_REPEAT_PARALLEL:-1}
    for i in $(seq "$runs"); do
      # shellcheck disable=SC2086
      ( "build-gpu/tests/$t" ${DFM_REPEAT_ARGS:-} > "$out/repeat_$(basename "$t")_$i.log" 2>&1
        echo "rc $?" >> "$out/repeat_$(basename "$t")_$i.log" ) &
      if [ $((i % par)) -eq 0 ]; then wait; fi
    done
    wait
    for i in $(seq "$runs"); do grep -q '^rc 0$' "$out/repeat_$(basename "$t")_$i.log" && ok=$((ok + 1)); done
    status+=("repeat_$(basename "$t")|passed $ok of $runs|-")
    pack
  done
fi
if has cputhreads; then
  # Issue 18's thread targets: 16 environments >= 1.8x on 2 threads, a single small cloth never
  # slower. Thread counts interleaved per workload (the machine's drift hits both alike).
  cbench=${DFM_CPUTHREADS_BUILD:-build-gpu}/samples/dfm_bench
  for spec in "cloth-lift_16|--workload cloth-lift --envs 16" "soft-lift_16|--workload soft-lift --envs 16" \
    "cloth-lift_1|--workload cloth-lift --envs 1" "game-cloth24_1|--workload game-cloth --res 24 --hz 240 --envs 1"; do
    name=${spec%%|*}; args=${spec#*|}
    # DFM_CPUTHREADS_BIND: "none" (the default: no OpenMP binding) and/or OMP_PROC_BIND values
    # (spread, close) run with OMP_PLACES=cores, i.e. one worker per physical core.
    for bind in ${DFM_CPUTHREADS_BIND:-none}; do
      sfx=""; bindenv=()
      [ "$bind" != none ] && { sfx="_bind-$bind"; bindenv=(OMP_PLACES=cores "OMP_PROC_BIND=$bind"); }
      # DFM_CPUTHREADS_REPEAT rounds (default 1), each over every thread count in turn, so that a
      # drifting host hits all thread counts alike; the table takes each count's median run (of an
      # even number, the upper middle one).
      for rep in $(seq "${DFM_CPUTHREADS_REPEAT:-1}"); do
        for t in ${DFM_CPUTHREADS:-1 2}; do
          # shellcheck disable=SC2086
          step "cputhreads_${name}${sfx}_t${t}_r$rep" env "${bindenv[@]}" timeout 300 "$cbench" $args --backend cpu \
            --threads "$t" --windows 3 --quiet --json "$out/cputhreads_${name}${sfx}_t${t}_r$rep.json"
        done
      done
    done
  done
  lscpu > "$out/lscpu.txt" 2>&1 || true
fi
mpi_prog=build-gpu/samples/mpi_cloth_lift
if has mpi && [ -x "$mpi_prog" ]; then
  mpirun=(mpiexec --allow-run-as-root --oversubscribe --bind-to none)
  envs=${DFM_MPI_ENVS:-1024}
  step mpi_cpu_2_ranks ctest --test-dir build-gpu -L mpi --output-on-failure
  step mpi_1_rank timeout 240 "${mpirun[@]}" -n 1 "$mpi_prog" --envs "$envs" --steps 60 --warmup 10 --backend cuda \
    --json "$out/mpi_1_rank.json"
  if [ "$gpus" -ge 2 ]; then
    step mpi_2_ranks timeout 240 "${mpirun[@]}" -n 2 "$mpi_prog" --envs $((2 * envs)) --steps 60 --warmup 10 \
      --backend cuda --json "$out/mpi_2_ranks.json"
  else
    status+=("mpi_2_ranks|NOT RUN ($gpus GPU)|-")
  fi
elif has mpi; then
  status+=("mpi|NOT BUILT (no MPI: run tests/gpu/fetch-mpi.sh here and carry .mpi)|-")
fi
echo
echo "GPU: $(cat "$out/gpu.txt")"
grep -h "max |x_gpu\|bitwise\|default vs\|drape: two" "$out/ctest_gpu.log" 2>/dev/null | sed 's/^[0-9]*: //' || true
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out"/memcheck*.log "$out"/racecheck*.log 2>/dev/null || true
[ -f "$out/bench.log" ] && cat "$out/bench.log"
tail -n 30 "$out/bench_lift.log" 2>/dev/null || true
grep -h "^|" "$out"/mpi_1_rank.log "$out"/mpi_2_ranks.log 2>/dev/null | awk '!/^\|(---|ranks)/ || !seen[$0]++' || true
if [ -f "$out/mpi_1_rank.json" ] && [ -f "$out/mpi_2_ranks.json" ]; then
  python3 -c 'import json,sys; a,b=(json.load(open(f))["runs"][0]["env_steps_per_s"] for f in sys.argv[1:]); print(f"MPI: 2 ranks / 1 rank env-steps/s = {b/a:.3f}")' \
    "$out/mpi_1_rank.json" "$out/mpi_2_ranks.json"
fi
if ls "$out"/fold_*.json >/dev/null 2>&1; then
  python3 - "$out" <<'PY'
import glob, json, os, sys
ms = {}
for f in glob.glob(os.path.join(sys.argv[1], "fold_*.json")):
    _, name, envs = os.path.basename(f)[:-5].split("_")
    ms[(int(envs), name)] = json.load(open(f))["runs"][0]["wall_ms_per_step"]
print("| envs | cloth-fold ms/step (self-collision) | no self-collision | radius 0 | on / radius 0 |")
for e in sorted({k[0] for k in ms}):
    on, ns, off = (ms.get((e, n), float("nan")) for n in ("on", "noself", "off"))
    print(f"| {e} | {on:.3f} | {ns:.3f} | {off:.3f} | {on / off:.2f}x |")
PY
fi
if ls "$out"/sweep_*.json >/dev/null 2>&1; then
  python3 - "$out" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "sweep_*.json"))):
    name = os.path.basename(f)[6:-5]
    for r in json.load(open(f))["runs"]:
        rows.setdefault((r["workload"], r["envs"]), {})[name] = r["env_steps_per_s"]
print("| workload | envs | setting | env-steps/s |")
print("|---|---|---|---|")
for (wl, envs), d in sorted(rows.items()):
    for name, v in sorted(d.items()):
        print(f"| {wl} | {envs} | {name} | {v:.1f} |")
PY
fi
grep -h "threads, \|NOT RUN" "$out/ctest_gpu.log" 2>/dev/null | sed 's/^[0-9]*: //' || true
[ -f "$out/attribution.log" ] && tail -n 40 "$out/attribution.log"
[ -f "$out/scaling.log" ] && grep -a "^|" "$out/scaling.log"
[ -f "$out/gripper_gpu.log" ] && tail -n 2 "$out/gripper_gpu.log"
ls "$out"/grip_*.log >/dev/null 2>&1 && for f in "$out"/grip_*.log; do echo "$(basename "$f" .log): $(tail -n 1 "$f" | sed 's/.*during the 2 s hold/hold/; s/; 0 contact.*;/;/')"; done
echo
echo "| step | result | time |"
echo "|---|---|---|"
for s in "${status[@]}"; do echo "| ${s//|/ | } |"; done
if ls "$out"/cputhreads_*.json >/dev/null 2>&1; then
  echo
  echo "CPU threads (issue 18; host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
  grep -E "^(Thread|Core|Socket|NUMA node\(s\)|CPU\(s\))" "$out/lscpu.txt" 2>/dev/null | tr -s ' ' | paste -sd';' || true
  python3 - "$out" <<'PY'
import glob, json, os, re, sys
rows = {}
runs = {}
for f in glob.glob(os.path.join(sys.argv[1], "cputhreads_*_t*.json")):
    m = re.match(r"cputhreads_(.+)_t(\d+)(?:_r\d+)?\.json$", os.path.basename(f))
    r = json.load(open(f))["runs"][0]
    runs.setdefault(m.group(1), {}).setdefault(int(m.group(2)), []).append((r["env_steps_per_s"], r["wall_ms_per_step"]))
for name, d in runs.items():  # the median run of each thread count (by env-steps/s; upper middle of an even count)
    for t, lst in d.items():
        lst.sort()
        rows.setdefault(name, {})[t] = lst[len(lst) // 2]
threads = sorted({t for d in rows.values() for t in d})
print("| workload_envs | " + " | ".join(f"{t} thr env-steps/s (ms/step)" for t in threads) + " | " +
      " | ".join(f"{t}/{threads[0]}" for t in threads[1:]) + " |")
print("|---" * (1 + 2 * len(threads) - 1) + "|")
for name in sorted(rows):
    d = rows[name]
    cells = [f"{d[t][0]:.1f} ({d[t][1]:.2f})" if t in d else "-" for t in threads]
    ratios = [f"{d[t][0] / d[threads[0]][0]:.2f}x" if t in d and threads[0] in d else "-" for t in threads[1:]]
    print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
PY
fi
pack
