#!/bin/bash
# device-cleanup.sh - the cleanup branch's gpu check on one GPU, from the
# repository root, within DEADLINE (default 290) s:
#   1. build everything (CUDA, a python with numpy / scipy) in /tmp/b-cleanup
#      (BUILD: an existing build to reuse; ~30-60 s with -j16);
#   2. the gpu tests of what the branch touched, 4 at a time: the vector
#      kernels (one-set dots through cdots, caxpby / caxpbypcz through
#      axpby / axpbypcz's bodies: test_solver_vec_gpu against the CPU, and
#      every Krylov solve: test_solver_ksp_gpu, test_ksp_block_gpu,
#      test_solver_single_gpu), the GPU factor (the old scatter map gone,
#      the level kernels' clamp queried once: test_direct_gpu,
#      test_direct_pc_gpu, test_pc_multi_gpu, test_pmg_gpu,
#      test_pmg_app_gpu), the threads beside the solve through core/beside.c
#      and the A/B switches gone (test_fsys_gpu, test_fsys_block_gpu,
#      test_overlap_gpu, test_onerun_gpu, test_sweep_post_gpu,
#      test_spmat_refill_gpu, test_dra_gpu);
#   3. compute-sanitizer memcheck of test_solver_vec gpu (capped).
# Expect: every test passed; memcheck "ERROR SUMMARY: 0 errors".
# SKIP_SAN leaves step 3 out.  Logs: $OUT/cleanup-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-cleanup}
DEADLINE=${DEADLINE:-290}
B=${BUILD:-/tmp/b-cleanup}
L=/tmp/cleanup-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/cleanup-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp cleanup-logs 2> /dev/null' EXIT
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
dev_build 120 || exit 1
step "gpu tests (-j4)"
T="test_solver_vec_gpu|test_solver_ksp_gpu|test_ksp_block_gpu|test_solver_single_gpu"
T="$T|test_direct_gpu|test_direct_pc_gpu|test_pc_multi_gpu|test_pmg_gpu|test_pmg_app_gpu"
T="$T|test_fsys_gpu|test_fsys_block_gpu|test_overlap_gpu|test_onerun_gpu|test_sweep_post_gpu"
T="$T|test_spmat_refill_gpu|test_dra_gpu"
(cd "$B" && timeout "$(cap 170)" ctest -R "^($T)\$" -j4 --timeout 160 --output-on-failure \
  > "$L/ctest-gpu.log" 2>&1)
echo "ctest rc $?"
grep -E "tests passed|tests failed|Total Test time" "$L/ctest-gpu.log"
sed -n '/The following tests/,$p' "$L/ctest-gpu.log"
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null && [ "$(left)" -gt 20 ]; then
  step "memcheck solver/test_solver_vec gpu"
  (cd "$B/tests" && timeout "$(cap 60)" compute-sanitizer --tool memcheck --error-exitcode 9 \
    ./solver/test_solver_vec gpu > "$L/memcheck-test_solver_vec.log" 2>&1)
  echo "memcheck test_solver_vec: rc $? ($(grep -h "ERROR SUMMARY" "$L/memcheck-test_solver_vec.log" | tail -1))"
fi
step "done"
