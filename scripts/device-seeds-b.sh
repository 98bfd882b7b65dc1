#!/bin/bash
# device-seeds-b.sh - issue 31 items 3-5 (seeds 001, 003, 004) on one GPU
# (H100 or H200), from the repository root, within 5 minutes (DEADLINE,
# seconds, default 295; each step time-boxed, what finished comes back): build in /tmp, the gpu tests of the new paths, the
# benchmarks, a summary on stdout; logs in $OUT/seeds-b-logs.tgz.
#   1. ctest -L gpu: test_tridiag_gpu (split, original split, mapped path,
#      the front end), test_spline_gpu (the S-parameter splines on the GPU),
#      test_gf2_sparse_gpu, test_gf2_gpu (the search options' defaults);
#   2. tridiag_bench --paths (seed 001: split / original split /
#      gtsv2_nopivot, copies vs mapped, 2^20..2^24 rows, real and complex);
#   3. gf2_sparse_bench (seed 003: the 1M-tet box's boundary matrices, the
#      thread-count / pivot-search study on k = 8, 10);
#   4. bitmap_patent_bench (seed 004, CPU: colouring at 1M tets, ops).
# HUGE=1 adds a real system whose arrays and split workspace (9 x 8 bytes
# a row) are larger than the GPU's memory, by the mapped path alone
# (tridiag_bench --paths --real $HUGE_N, default 1.2e9 rows: 86 GB of pinned
# host memory, checked by its residual; a minute or two) - only on a host
# with >= 110 GB (the one-GPU machines have 128 GiB).
set -uo pipefail
OUT=${OUT:-out/device}
DEADLINE=${DEADLINE:-295}
B=${BUILD:-/tmp/b-seeds-b}
L=/tmp/seeds-b-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/seeds-b-logs.tgz" -C /tmp seeds-b-logs 2>/dev/null' EXIT
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
. scripts/device-setup.sh
G=$(command -v ninja > /dev/null && echo "-G Ninja")
step build
cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON > "$L/configure.log" 2>&1
timeout "$(cap 170)" cmake --build "$B" -j"$(nproc)" --target test_tridiag_gpu test_spline_gpu \
  test_gf2_sparse_gpu test_gf2_gpu test_tridiag test_gf2_sparse test_bmp test_colour tridiag_bench \
  gf2_sparse_bench bitmap_patent_bench > "$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head -20; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread
step "gpu tests"
(cd "$B" && timeout "$(cap 60)" ctest -R "test_tridiag|test_spline_gpu|test_gf2_sparse|test_gf2_gpu|test_bmp|test_colour" \
  --output-on-failure --timeout 50 > "$L/ctest.log" 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|\*\*\*|worst" "$L/ctest.log" | tail -12
step "seed 001: tridiag_bench --paths"
timeout "$(cap 60)" "$B/bench/tridiag_bench" --paths > "$L/tridiag-paths.md" 2>&1
echo "rc $?"; cat "$L/tridiag-paths.md"
if [ "${HUGE:-0}" = 1 ]; then
  step "seed 001: mapped path beyond the GPU's memory"
  timeout "$(cap 150)" "$B/bench/tridiag_bench" --paths --real "${HUGE_N:-1200000000}" \
    > "$L/tridiag-huge.md" 2>&1
  echo "rc $?"; tail -3 "$L/tridiag-huge.md"
fi
step "seed 003: gf2_sparse_bench"
timeout "$(cap 100)" "$B/bench/gf2_sparse_bench" > "$L/gf2-sparse.md" 2>&1
echo "rc $?"; grep -E "^#|GPU|\| d[123] |CPU \(linalg/gf2.c\) \| (1|$(nproc)) " "$L/gf2-sparse.md"
step "seed 004: bitmap_patent_bench"
timeout "$(cap 60)" "$B/bench/bitmap_patent_bench" > "$L/bitmap-patent.md" 2>&1
echo "rc $?"; grep -E "^#|^\| (stamps|edges|get|A |LU)" "$L/bitmap-patent.md"
step "done"
