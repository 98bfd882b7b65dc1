#!/bin/bash
# device-onerun.sh - issue 24, the single 1M run's host stages (branch
# onerun), on one GPU within about 7 minutes:
#   1. build (CUDA, a python with numpy) in /tmp/b-onerun;
#   2. the gpu tests of what changed: test_onerun_gpu (the cache skipped,
#      the estimate overlapped, one device line), test_overlap_gpu,
#      test_fsys_gpu (one-solve check), test_direct_gpu, test_direct_pc_gpu,
#      test_pc_multi_gpu, test_pmg_gpu (the GPU factor's new scatter map
#      and its pinned ring);
#   3. compute-sanitizer memcheck of model/test_fsys_gpu (the ring's
#      uploads on small factors);
#   4. the 1M order-3 DRA (issue 24's command): the default, the default
#      again (run-to-run), and the overlapped analysis / assembly thread
#      splits EMSOLVE_OVERLAP_THREADS = N:N/2 and 3N/4:N/4 (N the cores);
#      stage tables, S11, key lines.  The "old" run (EMSOLVE_ONERUN=0,
#      bench/results/2026-11-28-h200-4) went with that switch.
# SKIP_TESTS, SKIP_SAN, SKIP_24, SKIP_SPLITS leave a part out.  Logs:
# $OUT/onerun-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-onerun}
B=${BUILD:-/tmp/b-onerun}
L=/tmp/onerun-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/onerun-logs.tgz" --exclude="*.vtk" --exclude="*.mat" --exclude="*.msh" -C /tmp onerun-logs 2> /dev/null' EXIT
T0=$(date +%s)
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
N=$(nproc)
echo "host cores: $N" | tee -a "$L/device.txt"
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
if [ ! -x "$B/app/emsolve" ]; then
  step build
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  # shellcheck disable=SC2086
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
  cmake --build "$B" -j"$N" > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  step "gpu tests"
  (cd "$B" && timeout 200 ctest -R "^(test_onerun_gpu|test_overlap_gpu|test_fsys_gpu|dump_dra_o2|test_direct_gpu|test_direct_pc_gpu|test_pc_multi_gpu|test_pmg_gpu)$" \
    -j4 --timeout 190 --output-on-failure > "$L/ctest-gpu.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest-gpu.log"
fi
if [ -z "${SKIP_SAN:-}" ] && command -v compute-sanitizer > /dev/null; then
  step "memcheck model/test_fsys_gpu gpu"
  timeout -k 5 "${SAN_CAP:-100}" compute-sanitizer --tool memcheck --error-exitcode 3 "$B/tests/model/test_fsys_gpu" gpu \
    > "$L/memcheck-fsys.log" 2>&1
  echo "memcheck test_fsys_gpu: rc $? (0 clean, 3 errors, 124 out of time)"
  grep -E "ERROR SUMMARY" "$L/memcheck-fsys.log" | head -2
fi
if [ -z "${SKIP_24:-}" ]; then
  R=$(command -v python3)
  run() { # LABEL env... -- emsolve args
    local lab=$1 t0
    shift
    t0=$(date +%s.%N)
    env "$@" > "$L/$lab.out" 2> "$L/$lab.log"
    echo "$lab: rc $? wall $($R -c "print(f'{$(date +%s.%N) - $t0:.2f}')") s" | tee -a "$L/walls.txt"
  }
  M1="$B/app/emsolve cases/dra.geo --device gpu --verbose -setnumber Solver/order 3
      -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9
      -setnumber Solver/frequency 5.8e9"
  labs="new new2"
  step "issue 24: the 1M run, the default, twice"
  # shellcheck disable=SC2086
  run new $M1 --out "$L/new"
  # shellcheck disable=SC2086
  run new2 $M1 --out "$L/new2"
  if [ -z "${SKIP_SPLITS:-}" ]; then
    step "issue 24: the 1M run, analysis:assembly threads $N:$((N / 2)) and $((3 * N / 4)):$((N / 4))"
    # shellcheck disable=SC2086
    run split-half EMSOLVE_OVERLAP_THREADS=$N:$((N / 2)) $M1 --out "$L/split-half"
    # shellcheck disable=SC2086
    run split-quarter EMSOLVE_OVERLAP_THREADS=$((3 * N / 4)):$((N / 4)) $M1 --out "$L/split-quarter"
    labs="$labs split-half split-quarter"
  fi
  args=()
  for lab in $labs; do
    [ -f "$L/$lab/summary.json" ] && args+=("$lab=$L/$lab:$L/$lab.log")
  done
  $R scripts/stage_table.py "${args[@]}" | tee "$L/stages.txt"
  for lab in $labs; do
    echo "$lab: $(grep -v "^[!#]" "$L/$lab/"*.s1p 2> /dev/null | head -1)"
  done
  for lab in $labs; do
    echo "--- $lab"
    grep -h "device: \|released\|frequency-independent\|assembly: order\|scatter map\|equilibrated in\|overlap: \|beside\|numeric factorization\|error estimate\|formats built\|frequency 1/1, " \
      "$L/$lab.log" | cut -c1-170
    tail -c 300 "$L/$lab.log" | tail -2 | cut -c1-170
  done
fi
step done
