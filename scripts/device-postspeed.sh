#!/bin/bash
# device-postspeed.sh - issue 24, a one-frequency run after its solve
# (branch postspeed: the error estimate and the far field on their own
# shares of the cores, the fields file's sampling beside the estimate, the
# estimate's arithmetic), on one GPU within about 7 minutes (build <= 200 s, tests <= 150 s, four 1M runs ~60 s):
#   1. build (CUDA, a python with numpy) in /tmp/b-postspeed;
#   2. the tests of what changed: test_onerun_gpu (the estimate overlapped,
#      S11 and the error fields against the in-order run), test_overlap_gpu,
#      test_estimate_fast, test_post_vtk, test_onerun (CPU: every output
#      byte for byte with the estimate overlapped and in order);
#   3. the 1M order-3 DRA (issue 24's command), the default twice, then the
#      caller's share of the post threads EMSOLVE_POST_SHARE = N/5 and N/2
#      (the default is (N + 1) / 3); per run: the post-stage lines, the wall
#      time from `date` around the process, and the split of that wall time
#      (the process's start before the log's clock, the log's last time, the
#      exit after it).
# SKIP_TESTS, SKIP_SHARES leave a part out; DEADLINE (420 s) caps the build
# and the tests.  Logs: $OUT/postspeed-logs.tgz.
set -uo pipefail
OUT=${OUT:-out/device-postspeed}
B=${BUILD:-/tmp/b-postspeed}
L=/tmp/postspeed-logs
mkdir -p "$OUT" "$L"
trap 'tar czf "$OUT/postspeed-logs.tgz" --exclude="*.vtk" --exclude="*.msh" -C /tmp postspeed-logs 2> /dev/null' EXIT
DEADLINE=${DEADLINE:-420}
# shellcheck disable=SC1091
. scripts/device-lib.sh
N=$(nproc)
echo "host cores: $N" | tee -a "$L/device.txt"
dev_build 200 || exit 1
if [ -z "${SKIP_TESTS:-}" ]; then
  step "tests"
  (cd "$B" && timeout "$(cap 150)" ctest -R "^(test_onerun_gpu|test_overlap_gpu|test_onerun|test_estimate_fast|test_post_vtk)$" \
    -j4 --timeout 140 --output-on-failure > "$L/ctest.log" 2>&1)
  grep -E "Test +#|tests passed|tests failed" "$L/ctest.log"
fi
M1="$B/app/emsolve cases/dra.geo --device gpu --verbose -setnumber Solver/order 3
    -setnumber Mesh/elements_per_wavelength 13.3 -setnumber Mesh/frequency 5.8e9
    -setnumber Solver/frequency 5.8e9"
run() { # LABEL env...: the 1M run, its post lines and its wall time's split
  local lab=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  env "$@" $M1 --out "$L/$lab" > "$L/$lab.out" 2> "$L/$lab.log"
  rc=$?
  t1=$(date +%s.%N)
  rm -f "$L/$lab"/*.vtk
  awk -v lab="$lab" -v rc="$rc" -v t0="$t0" -v t1="$t1" '
    /\] solve: /                             { solve = $2 }
    /\] far field: [0-9]+ faces/             { print "  " $0 }
    /\] far field: P_rad/                    { sub(/P_rad.*; /, "... "); print "  " $0 }
    /error estimate \(overlapped\)|\] writing: |port quantities, fields|memory released/ { print "  " $0 }
    /the process began/                      { began = $7 }
    { last = $2 }
    END {
      gsub(/s\]/, "", solve); gsub(/s\]/, "", last); wall = t1 - t0
      printf "%s: rc %s wall %.2f s = start %.2f + log %.2f + exit %.2f; solve ends %.2f, post and exit %.2f s\n",
             lab, rc, wall, began, last, wall - began - last, solve, wall - began - solve
    }' "$L/$lab.log" | tee -a "$L/summary.txt"
  grep -E "^5\.8 " "$L/$lab.out" | head -2 | sed "s/^/  $lab: /"
}
step "issue 24: the 1M run, the default twice"
run new
run new2
if [ -z "${SKIP_SHARES:-}" ]; then
  step "issue 24: the 1M run, the caller's post threads $(((N + 2) / 5)) and $((N / 2)) of $N"
  run share-fifth EMSOLVE_POST_SHARE=$(((N + 2) / 5))
  run share-half EMSOLVE_POST_SHARE=$((N / 2))
fi
step done
