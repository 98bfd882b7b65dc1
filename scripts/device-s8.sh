#!/bin/bash
# device-s8.sh - the checks of branch gpuperm on one GPU (the seventh
# session's first call), from the repository root, within DEADLINE (570) s:
#   1. build and every gpu-labelled test (device-s7a.sh, SKIP_PROFILE=1):
#      em_ksp_opts.perm's upload_perm / download_perm kernels, the shared
#      product helpers of direct_gpu_kernels.cu and trinv_own's kernels had
#      only compiled;
#   2. compute-sanitizer memcheck of test_ksp_block gpu (the permuted
#      columns) and test_pc_multi gpu (trinv_own, the default's row), 100 s
#      each: rc 124 is no verdict (test_ksp_block runs 86 s unchecked);
#   3. the 2 x 2 array, port 1 alone and the four ports as one block,
#      direct and pmg, three times each (device-s7b.sh, REPS="1 2 3"),
#      against bench/results/2026-11-28-h200-6 (direct 0.187 / 0.110 s,
#      pmg 2.518 / 1.508 s: the block's host permutations are gone here).
# Logs: $OUT/s7a-logs.tgz, $OUT/memcheck-*.log, $OUT/s7b-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s8}
DEADLINE=${DEADLINE:-570}
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
mkdir -p "$OUT"
SKIP_PROFILE=1 DEADLINE=$(($(left) - 250)) OUT="$OUT" bash scripts/device-s7a.sh 2>&1 | tail -8
for t in solver/test_ksp_block solver/test_pc_multi; do
  [ "$(left)" -lt 200 ] && break
  n=$(basename "$t")
  (cd /tmp/b-s7/tests && timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "./$t" gpu > "$OUT/memcheck-$n.log" 2>&1)
  echo "memcheck $n gpu rc=$? $(grep -h 'ERROR SUMMARY' "$OUT/memcheck-$n.log" | tail -1)"
done
SKIP_TESTS=1 SKIP_BENCH=1 REPS="1 2 3" DEADLINE=$(($(left) - 10)) OUT="$OUT" \
  bash scripts/device-s7b.sh 2>&1 | tail -14
