#!/bin/bash
# device-bench-linalg.sh - on the GPU machine (after device-setup.sh), from
# the repository root: build the issue-15 targets (tridiagonal split method,
# GF(2) elimination, bitmap GPU operations), run their gpu tests, the
# benches and compute-sanitizer, logs under $OUT.  Each step is time-boxed
# so that what finished comes back when the call's limit ends it.
B=${B:-/tmp/b}
OUT=${OUT:-/tmp/out}
SRC=$PWD
mkdir -p "$OUT"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1
timeout 150 cmake --build "$B" -j16 --target test_tridiag_gpu test_gf2_gpu test_bitmap_ops_gpu \
  tridiag_bench gf2_bench bitmap_ops_bench >> "$OUT/build.log" 2>&1
echo "build rc $?"; tail -3 "$OUT/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
date -u | tee -a "$OUT/device.txt"
(cd "$B" && timeout 60 ctest -L gpu -R "tridiag|gf2|bitmap_ops" --output-on-failure > "$OUT/ctest.log" 2>&1)
echo "ctest rc $?"; grep -E "tests passed|Failed|Passed|worst" "$OUT/ctest.log"
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread
{ timeout 60 "$B/bench/tridiag_bench"; echo "tridiag_bench rc $?"; } > "$OUT/bench.md" 2>&1
{ timeout 70 "$B/bench/gf2_bench"; echo "gf2_bench rc $?"; } >> "$OUT/bench.md" 2>&1
{ timeout 40 "$B/bench/bitmap_ops_bench"; echo "bitmap_ops_bench rc $?"; } >> "$OUT/bench.md" 2>&1
grep -E "rc |WRONG" "$OUT/bench.md"
export EM_TEST_SMALL=1 OMP_NUM_THREADS=2
for t in linalg/test_tridiag_gpu linalg/test_gf2_gpu formats/test_bitmap_ops_gpu; do
  a=gpu; [ "$t" = formats/test_bitmap_ops_gpu ] && a=
  timeout 40 compute-sanitizer --error-exitcode 9 "$B/tests/$t" $a > "$OUT/sanitizer_$(basename $t).log" 2>&1
  echo "sanitizer $t rc $?"; tail -2 "$OUT/sanitizer_$(basename $t).log"
done
unset EM_TEST_SMALL
timeout 120 cmake --build "$B" -j16 --target test_topology_gpu >> "$OUT/build.log" 2>&1 && \
  (cd "$SRC" && EM_SOURCE_DIR=$SRC timeout 40 "$B/tests/post/test_topology_gpu" gpu > "$OUT/topology.log" 2>&1; echo "topology gpu rc $?")
cat "$OUT/topology.log" 2>/dev/null | tail -5
