#!/bin/bash
# device-bench-linalg.sh - on the GPU machine (after device-setup.sh), from
# the repository root: build the issue-15 targets (tridiagonal split method,
# GF(2) elimination, bitmap GPU operations and LU), run their gpu tests, the
# benches and compute-sanitizer, logs under $OUT.  Each step is time-boxed
# so that what finished comes back when the call's limit ends it.
# STEPS (default "tests sanitizer bench"): which of the three to run;
# BENCHES (default "tridiag gf2 bitmap_ops"): which benches; BENCH_BOX
# (default 90): each bench's time box, seconds; TESTS: the ctest -R regex;
# GF2_ARGS: gf2_bench's arguments (e.g. "--sizes 4096,8192 --reps 5").
B=${B:-/tmp/b}
OUT=${OUT:-/tmp/out}
SRC=$PWD
STEPS=${STEPS:-tests sanitizer bench}
BENCHES=${BENCHES:-tridiag gf2 bitmap_ops}
mkdir -p "$OUT"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1
timeout 200 cmake --build "$B" -j16 --target test_tridiag_gpu test_gf2_gpu test_bitmap_ops_gpu \
  test_bitmap_lu_gpu test_bitmap_gpu test_topology_gpu test_gf2_m4ri_gpu tridiag_bench gf2_bench \
  bitmap_ops_bench \
  >> "$OUT/build.log" 2>&1
echo "build rc $?"; tail -3 "$OUT/build.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
date -u | tee -a "$OUT/device.txt"
if [[ $STEPS == *tests* ]]; then
  (cd "$B" && timeout 100 ctest -L gpu -R "${TESTS:-tridiag|gf2|bitmap|topology}" --output-on-failure \
    > "$OUT/ctest.log" 2>&1)
  echo "ctest rc $?"; grep -E "tests passed|Failed|Passed|FAIL" "$OUT/ctest.log"
fi
if [[ $STEPS == *sanitizer* ]]; then
  export EM_TEST_SMALL=1
  for t in formats/test_bitmap_lu_gpu linalg/test_gf2_gpu; do
    timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/$t" gpu \
      > "$OUT/sanitizer_$(basename $t).log" 2>&1
    echo "sanitizer $t rc $?"; tail -2 "$OUT/sanitizer_$(basename $t).log"
  done
  unset EM_TEST_SMALL
fi
if [[ $STEPS == *bench* ]]; then
  export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread
  : > "$OUT/bench.md"
  for b in $BENCHES; do
    args=""; [ "$b" = gf2 ] && args=${GF2_ARGS:-}
    # shellcheck disable=SC2086
    { timeout ${BENCH_BOX:-90} "$B/bench/${b}_bench" $args; echo "${b}_bench rc $?"; } >> "$OUT/bench.md" 2>&1
  done
  grep -E "rc |WRONG" "$OUT/bench.md"
fi
