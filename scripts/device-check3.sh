#!/bin/bash
# device-check3.sh - one GPU, from the repository root, about 5 minutes:
# build everything (CUDA) in /tmp/b-check3, the gpu tests of the direct
# factor, pmg and the block solves (the solves' default changed to streams
# alone; the symbolic analysis now runs on the supervariables), then issue
# 24's runs (scripts/device-speed24.sh) and issue 28's 2 x 2 array, the
# four ports as a block against port 1 alone (scripts/device-arrays.sh).
# Logs: $OUT/check3-logs.tgz, $OUT/speed24-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-check3}
B=${BUILD:-/tmp/b-check3}
L=/tmp/check3-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/check3-logs.tgz" --exclude="*.vtk" --exclude="*.mat" -C /tmp check3-logs 2> /dev/null' EXIT
T0=$(date +%s)
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
# a python3 with numpy and scipy for the tests/app gpu tests (the image's
# default python3 has neither: test_dra_gpu and test_array_gpu failed so)
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
step build
G=$(command -v ninja > /dev/null && echo "-G Ninja")
cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head; exit 1; }
step "gpu tests"
(cd "$B" && timeout 150 ctest -R "test_direct_gpu|test_direct_pc_gpu|test_pc_multi_gpu|test_pmg_gpu|test_ksp_block_gpu|test_pmg_app_gpu|test_dra_gpu|test_array_gpu|test_pc_conformance_gpu|test_fsys_gpu|test_fsys_block_gpu" \
  -j4 --output-on-failure --timeout 120 > "$L/ctest-gpu.log" 2>&1)
grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
step "issue 24"
BUILD="$B" OUT="$OUT" bash scripts/device-speed24.sh 2>&1 | tail -32
step "issue 28: the 2 x 2 array"
BUILD="$B" SKIP_SPMM=1 SKIP_TESTS=1 DEADLINE=150 OUT="$L" bash scripts/device-arrays.sh > "$L/arrays.log" 2>&1
cat /tmp/arrays-logs/array-summary.txt 2> /dev/null | tee "$L/array-summary.txt"
step done
