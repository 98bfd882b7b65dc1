#!/bin/bash
# device-check5.sh - after device-check4.sh's findings (the GPU value map's
# signed codes, the GPU comparisons of test_fsys / test_overlap, the scatter
# map by row tables, trinv off), on one GPU within about 5 minutes:
#   1. build (CUDA, a python with numpy) in /tmp/b-check5;
#   2. the gpu tests of what changed (value refill, fsys, overlap, the
#      direct factor and its solves, pmg, the DRA);
#   3. compute-sanitizer memcheck: test_spmat_refill gpu (the value map's
#      scatter) and test_pc_multi gpu direct (the factor's scatter map);
#   4. issue 24: the default 13-frequency order-3 sweep; the 1M run with
#      Solver/overlap 0 and 1; stage tables.  (Its "sweep-before" run,
#      EMSOLVE_SWEEPFAST=0, went with that switch.)
# SKIP_TESTS, SKIP_SAN, SKIP_24 leave a part out; SAN_CAP (s, default 160) caps each
# memcheck (test_pc_multi gpu direct needs more than 70 s).  Logs: $OUT/check5-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-check5}
B=${BUILD:-/tmp/b-check5}
L=/tmp/check5-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/check5-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp check5-logs 2> /dev/null' EXIT
T0=$(date +%s)
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
if [ ! -x "$B/app/emsolve" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout 150 ctest -R "test_spmat_refill_gpu|test_fsys_gpu|test_fsys_block_gpu|test_overlap_gpu|test_direct_gpu|test_direct_pc_gpu|test_pc_multi_gpu|test_pmg_gpu|test_dra_gpu|test_ksp_block_gpu" \
    -j4 --timeout 140 --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  for t in "formats/test_spmat_refill gpu" "solver/test_pc_multi gpu direct"; do
    step "memcheck $t"
    f=$(echo "${t%% *}" | tr / _)
    # shellcheck disable=SC2086
    timeout -k 5 "${SAN_CAP:-160}" compute-sanitizer --tool memcheck --error-exitcode 3 "$B/tests/"$t \
      > "$L/memcheck-$f.log" 2>&1
    echo "memcheck $t: rc $? (0 clean, 3 errors, 124 out of time)"
    grep -E "ERROR SUMMARY" "$L/memcheck-$f.log" | head -2
  done
fi
if [ -z "${SKIP_24:-}" ]; then
  R=$(command -v python3)
  run() { # LABEL env... -- emsolve args
    local lab=$1 t0
    shift
    t0=$(date +%s.%N)
    env "$@" > "$L/$lab.out" 2> "$L/$lab.log"
    echo "$lab: rc $? wall $($R -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s" | tee -a "$L/walls.txt"
  }
  step "issue 24: the 13-frequency sweep, default"
  SW="$B/app/emsolve cases/dra.geo -setnumber Solver/order 3 --device gpu --verbose"
  # shellcheck disable=SC2086
  run sweep $SW --out "$L/sweep"
  step "issue 24: the 1M run, overlap 0 and 1"
  M1="$B/app/emsolve cases/dra.geo --device gpu --verbose -setnumber Solver/order 3
      -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9
      -setnumber Solver/frequency 5.8e9"
  # shellcheck disable=SC2086
  run 1m-off $M1 -setnumber Solver/overlap 0 --out "$L/1m-off"
  # shellcheck disable=SC2086
  run 1m $M1 --out "$L/1m"
  args=()
  for lab in sweep 1m-off 1m; do
    [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log")
  done
  $R scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
  for lab in sweep 1m-off 1m; do
    echo "$lab: $(grep -v "^[!#]" "$L/$lab/"*.s1p 2> /dev/null | head -1)"
  done
  grep -h "scatter map\|equilibrated in\|overlap: waited\|inverse diagonal" "$L/1m.log" | cut -c1-160
  echo "sweep operator per frequency (s):" $(grep -o "operator: [0-9.]* s" "$L/sweep.log" | awk '{printf "%s ", $2}')
fi
step done
