#!/bin/bash
# bench-spmv.sh - on the GPU machine: build emsolve with CUDA, run the
# gpu-labelled tests, then the SpMV benchmark; logs and results go to $OUT.
#
#   scripts/bench-spmv.sh [spmv_bench arguments]     (default: --fem-box 21 --order 3)
#
# Run from the repository root.  A GPU machine without Debian's Gmsh/METIS
# needs .device/emdeps.tar.xz, made beforehand on the development machine by
# ../shared/gpu/pack-deps.sh (it is git-ignored: carry it with the run).
# Writes $OUT/{nvidia-smi.txt,configure.log,build.log,gpu-tests.log,
# spmv_bench.log,spmv.json,spmv.md}; exits nonzero when the build, a gpu test
# or the benchmark fails.  About 1-2 min to build on 16 cores, under 4 min
# to benchmark on an H100.
set -uo pipefail
OUT=${OUT:-out/bench-spmv}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT"
if [ -f .device/emdeps.tar.xz ]; then
  [ -d /opt/emdeps ] || { mkdir -p /opt && tar xJf .device/emdeps.tar.xz -C /opt; } || exit 1
  export LD_LIBRARY_PATH=/opt/emdeps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export CMAKE_PREFIX_PATH=/opt/emdeps
fi
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed (see $OUT/nvidia-smi.txt)"
echo "configure + build ($BUILD) ..."
if ! cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON >"$OUT/configure.log" 2>&1; then
  tail -20 "$OUT/configure.log"; echo "configure failed"; exit 1
fi
if ! cmake --build "$BUILD" -j"$(nproc)" >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -20; echo "build failed"; exit 1
fi
echo "gpu tests ..."
status=0
if ! ctest --test-dir "$BUILD" -L gpu --output-on-failure >"$OUT/gpu-tests.log" 2>&1; then
  status=1
fi
tail -15 "$OUT/gpu-tests.log"
[ $# -gt 0 ] || set -- --fem-box 21 --order 3
echo "spmv_bench $* ..."
"$BUILD/bench/spmv_bench" "$@" --out "$OUT" 2>&1 | tee "$OUT/spmv_bench.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
[ $status -eq 0 ] || echo "FAILED: see $OUT/gpu-tests.log and $OUT/spmv_bench.log"
exit $status
