#!/bin/bash
# bench-solve.sh - build and run the solver benchmark (bench/solve_bench.c):
# Krylov + Jacobi / ILU(0) on the GPU against the same algorithm on all CPU
# cores of the host.  About 6 minutes on an H100 + 16 cores (--budget 330).
#
#   scripts/bench-solve.sh --matrix sys.emm      # from emsolve --dump-matrix
#   scripts/bench-solve.sh --gen 48              # generated curl-curl system
#   scripts/bench-solve.sh --matrix sys.emm --ordering bmc --methods cocg
#
# Environment: BUILD (build directory, default build), OUT (results folder,
# default bench/results/solve-<GPU>-<date>), OMP_* as usual (default: one
# thread per core, spread, actively waiting).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j"$(nproc)" --target solve_bench
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}"
export OMP_PROC_BIND="${OMP_PROC_BIND:-spread}"
export OMP_PLACES="${OMP_PLACES:-cores}"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-active}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr -c 'A-Za-z0-9\n' '-' || true)
out=${OUT:-bench/results/solve-${gpu:-nogpu}-$(date +%Y%m%d-%H%M)}
[ $# -gt 0 ] || set -- --gen 48
mkdir -p "$out"
echo "solve_bench $* -> $out (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
"$BUILD/bench/solve_bench" --out "$out" "$@" 2> >(tee "$out/stderr.txt" >&2) | tee "$out/stdout.txt"
