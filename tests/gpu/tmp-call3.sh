#!/usr/bin/env bash
# temporary (session 13): the merged main on the H200, one call. Summary in $OUT/summary.txt.
export PATH=/usr/local/cuda/bin:$PATH
S=$OUT/summary.txt
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
DFM_GPU_PHASES="build" bash tests/gpu/run-on-gpu.sh > $OUT/build.txt 2>&1; echo "build rc=$? $(el)" >> $S
timeout 200 ctest --test-dir build-gpu -L 'gpu|parity' -j 4 --output-on-failure > $OUT/ctest_gpu.log 2>&1
echo "ctest gpu|parity rc=$? $(el)" >> $S
grep -h "tests passed\|\*\*\*Failed\|Timeout\|(Failed)\|Not Run" $OUT/ctest_gpu.log | head -30 >> $S
for t in incline pinch; do
  DFM_TEST_BACKEND=cuda timeout 50 build-gpu/tests/physics/test_physics_$t > $OUT/cuda_$t.log 2>&1
  echo "cuda $t rc=$? $(el)" >> $S; tail -n 4 $OUT/cuda_$t.log >> $S
done
DFM_GPU_PHASES="cputhreads" timeout 100 bash tests/gpu/run-on-gpu.sh > $OUT/cputhreads.txt 2>&1
echo "cputhreads rc=$? $(el)" >> $S; tail -n 12 $OUT/cputhreads.txt >> $S
DFM_TEST_BACKEND=cuda timeout 60 build-gpu/tests/physics/test_physics_heavy_hammock --energy > $OUT/cuda_hammock.log 2>&1
echo "cuda hammock --energy rc=$? $(el)" >> $S; grep "kg box\|failed" $OUT/cuda_hammock.log >> $S
cat $S
