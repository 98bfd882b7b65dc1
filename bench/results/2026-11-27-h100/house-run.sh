#!/bin/bash
# house-run.sh - the one device run of branch house (issue 16), from the
# repository root on the GPU machine, logs under $OUT: build, the gpu tests
# of what the branch touched (the CSR operator of the solver tests is now
# formats' em_spmat; AUTO's rule; the bitmap operations' timer; the tests'
# one test_backend), compute-sanitizer on two, and the SpMV
# rows that ground AUTO's HYB and bitmap steps (spmv_bench --quick).
set -u
B=/tmp/b-house
G=$(command -v ninja >/dev/null && echo "-G Ninja")
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0)) s] $*"; }
TARGETS="test_spmat_conformance_gpu test_sellrt_gpu test_hyb_gpu test_bitmap_gpu test_blockop_gpu
 test_solver_vec test_solver_single test_solver_trsv test_solver_ilu test_solver_breakdown
 test_pc_conformance test_solver_ksp test_direct_pc test_pmg test_fmt_choose test_sellrt_cpu
 test_bitmap_ops_gpu test_tridiag_gpu test_gf2_gpu test_topology_gpu"
TESTS="test_spmat_conformance_gpu test_sellrt_gpu test_hyb_gpu test_bitmap_gpu test_blockop_gpu
 test_solver_vec_gpu test_solver_single_gpu test_solver_trsv_gpu test_solver_ilu_gpu
 test_solver_breakdown_gpu test_pc_conformance_gpu test_solver_ksp_gpu test_direct_pc_gpu
 test_pmg_gpu test_fmt_choose test_sellrt_cpu test_bitmap_ops_gpu test_tridiag_gpu test_gf2_gpu
 test_topology_gpu"
{
  el configure
  cmake -S . -B $B $G -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
  el build
  cmake --build $B -j16 --target spmv_bench solve_bench $TARGETS 2>&1 | tail -3
  el built
} >$OUT/build.log 2>&1
R=$(echo $TESTS | sed 's/ /$|^/g')
(cd $B && ctest -R "^$R\$" --output-on-failure 2>&1) >$OUT/gpu-tests.log
el tests done >>$OUT/build.log
(cd $B && timeout 60 ./bench/solve_bench --gen 6 --budget 30 --cpu-cap 5 --ordering nd \
  --out /tmp/sb 2>&1 | tail -25) >$OUT/solve-bench-gpu.log
el solve_bench done >>$OUT/build.log
S="$B/bench/spmv_bench --quick --prec double --reps 30"
{
  for a in "" "--long-rows 1:1024" "--long-rows 1:4096" "--long-rows 1:16384" \
    "--long-rows 200:4096" "--long-rows 2000:1024"; do
    timeout 45 $S --fem-box 12 --order 3 $a 2>&1 | grep -v "^  "
  done
  for f in 64 32 16 8; do timeout 45 $S --blocks $f --rows 131072 2>&1 | grep -v "^  "; done
} >$OUT/spmv-auto.log
el spmv done >>$OUT/build.log
(cd $B && EM_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck \
  ./tests/formats/test_bitmap_ops_gpu 2>&1 | tail -8
  timeout 60 compute-sanitizer --tool memcheck ./tests/solver/test_solver_single gpu 2>&1 |
  tail -8) >$OUT/sanitizer.log
el sanitizer done >>$OUT/build.log
