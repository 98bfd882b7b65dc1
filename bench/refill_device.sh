#!/bin/bash
# bench/refill_device.sh - the refill branch's one device run (2026-11-27):
# run from the device's repository root (the base tree, main at the
# branch's fork point) with this branch under .dev/refill.  Builds both,
# runs the touched gpu tests, compute-sanitizer memcheck on the refill
# test, then the default 13-frequency order-3 DRA sweep on the GPU (base,
# refill) and, time permitting, on the CPU.  Each step is skipped when the
# time left (BUDGET seconds from the start) is too short for it.  BASE=0:
# this branch only (the base numbers from an earlier run).
BUDGET=${BUDGET:-405}
T0=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - T0))); }
. scripts/device-setup.sh
G=$(command -v ninja >/dev/null && echo "-G Ninja")
ROOT=$PWD
[ "${BASE:-1}" = 1 ] && (cmake -S . -B /tmp/b-base $G -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build /tmp/b-base -j16 --target emsolve >$OUT/build-base.log 2>&1) &
(cd .dev/refill && cmake -S . -B /tmp/b-refill $G -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build /tmp/b-refill -j16 --target emsolve test_spmat_refill test_fsys test_pmg \
    test_blockop >$OUT/build-refill.log 2>&1) &
wait
echo "builds done at $(( $(date +%s) - T0 )) s" | tee $OUT/steps.log
tail -3 $OUT/build-*.log
cd /tmp/b-refill
timeout 60 ctest -R 'test_spmat_refill_gpu|test_fsys_gpu|test_pmg_gpu|test_blockop_gpu' \
  --output-on-failure >$OUT/gpu-tests.log 2>&1
echo "gpu tests done at $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
sweep() { # sweep NAME BUILD DEVICE
  local d=/tmp/sw-$1
  [ $(left) -gt ${4:-90} ] || { echo "skip $1: $(left) s left" >>$OUT/steps.log; return; }
  (cd $ROOT && time timeout $(( $(left) - 5 )) $2/app/emsolve cases/dra.geo \
     -setnumber Solver/order 3 --device $3 --out $d) >$OUT/$1.log 2>&1
  cp $d/summary.json $OUT/$1-summary.json 2>/dev/null
  cp $d/dra.s1p $OUT/$1.s1p 2>/dev/null
  echo "$1 done at $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
}
if [ $(left) -gt 150 ]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout 70 $CS --tool memcheck --leak-check full ./tests/formats/test_spmat_refill gpu quick \
    >$OUT/memcheck-refill.log 2>&1
  echo "memcheck rc $? at $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
fi
sweep gpu-refill /tmp/b-refill gpu 70
[ "${BASE:-1}" = 1 ] && sweep gpu-base /tmp/b-base gpu 80
cmp $OUT/gpu-refill.s1p $OUT/gpu-base.s1p >>$OUT/steps.log 2>&1 && echo "s1p identical" >>$OUT/steps.log
sweep cpu-refill /tmp/b-refill cpu 100
[ "${BASE:-1}" = 1 ] && sweep cpu-base /tmp/b-base cpu 100
# at most 8 files come back from the device: everything in one archive
(cd $OUT && tar czf all.tgz --exclude all.tgz * && find . -type f ! -name all.tgz ! -name steps.log -delete)
