#!/bin/bash
# device-s8b.sh - the seventh session's second one-GPU call, from the
# repository root, within DEADLINE (570) s: after 2197f25 (the solutions'
# block first touched by all threads; the permuted-columns check of
# test_ksp_block for COCG and GMRES only):
#   1. the block tests on the GPU (device-s7b.sh's build and TESTS);
#   2. (last, in what time is left) compute-sanitizer memcheck of test_fsys_block gpu (a two-port block
#      through the direct factor's block solves - trinv_own's kernels - and
#      the permutation kernels; 2 s unchecked), cap 150 s;
#   3. the 2 x 2 array three times (REPS="1 2 3"): port 1 alone and the
#      four ports as one block, direct and pmg.
# Logs: $OUT/s7b-logs.tgz, $OUT/memcheck-test_fsys_block.log.
set -uo pipefail
OUT=${OUT:-out/device-s8b}
DEADLINE=${DEADLINE:-570}
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
mkdir -p "$OUT"
TESTS="test_ksp_block_gpu|test_fsys_block_gpu|test_array_gpu|test_pc_multi_gpu" SKIP_RUNS=1 \
  SKIP_BENCH=1 DEADLINE=$(($(left) - 330)) OUT="$OUT/t" bash scripts/device-s7b.sh 2>&1 | tail -8
mv "$OUT/t/s7b-logs.tgz" "$OUT/s7b-tests.tgz" 2> /dev/null
SKIP_TESTS=1 SKIP_BENCH=1 REPS="1 2 3" DEADLINE=$(($(left) - 90)) OUT="$OUT" \
  bash scripts/device-s7b.sh 2>&1 | tail -14
(cd /tmp/b-s7/tests && timeout $(($(left) > 150 ? 150 : $(left))) compute-sanitizer --tool memcheck --error-exitcode 9 \
  ./model/test_fsys_block gpu > "$OUT/memcheck-test_fsys_block.log" 2>&1)
echo "memcheck test_fsys_block gpu rc=$? $(grep -h 'ERROR SUMMARY' "$OUT/memcheck-test_fsys_block.log" | tail -1)"
