#!/bin/bash
# device-s7a.sh - the sixth session's first call on one GPU, from the
# repository root, within DEADLINE (default 570) s:
#   1. build everything (CUDA) in /tmp/b-s7;
#   2. every gpu-labelled test, 4 at a time (58b97fa and 871534a, the trinv
#      fallback and the small update matrices' lifetime, had only compiled);
#   3. the 2 x 2 array's order-3 system dumped, and the direct solves'
#      CUDA-event profile of N = 1 and 4 columns (bench/pc_multi_bench
#      --profile) with trinv for blocks up to 2048 columns (the default) and
#      for all blocks: where the four-column apply's extra time goes.
# Logs: $OUT/s7a-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-s7a}
DEADLINE=${DEADLINE:-570}
B=${BUILD:-/tmp/b-s7}
L=/tmp/s7a-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/s7a-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp s7a-logs 2> /dev/null' EXIT
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
dev_build 260 || exit 1
if [ -z "${SKIP_TESTS:-}" ]; then
  step "ctest -L gpu -j4 ${TESTS:+-R $TESTS}"
  (cd "$B" && timeout "$(cap 280)" ctest -L gpu ${TESTS:+-R "$TESTS"} -j4 --timeout 200 \
    --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  echo "ctest rc $?"
  grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
  sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_PROFILE:-}" ] && [ "$(left)" -gt 80 ]; then
  step "dump the 2 x 2 array's order-3 system"
  [ -f /tmp/arr_o3.mat ] || timeout -k 10 "$(cap 90)" "$B/app/emsolve" cases/dra_array.geo -setnumber Solver/order 3 \
    -setnumber Solver/frequency 5.8e9 -setstring Output/fields none -setstring Farfield/compute off \
    -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 1 --device gpu \
    --out /tmp/s7a-dumparr --dump-matrix /tmp/arr_o3.mat > "$L/dumparr.log" 2>&1
  step "pc_multi_bench --profile on the array"
  timeout -k 10 "$(cap 200)" "$B/bench/pc_multi_bench" --matrix /tmp/arr_o3.mat --device gpu \
    --prec mixed --pc direct --reps 3 --ns 1,4 --profile \
    --variants "${VARIANTS:-st+tlev+inv2+imax2048,st+tlev+inv2}" > "$L/pc_multi_profile.log" 2>&1
  echo "pc_multi_bench rc=$?"
  grep -E "^(direct|pmg)|profile" "$L/pc_multi_profile.log" | cut -c1-400
fi
step done
