# shellcheck shell=bash
# device-lib.sh - the preamble of a device script, sourced from the
# repository root after it sets B (build directory), L (log directory) and
# DEADLINE (seconds): the clock (left, cap, step), the carried libraries
# (device-setup.sh), the device line in $L/device.txt, a python with numpy
# and scipy (PY), and dev_build (configure and build everything with CUDA
# in $B unless $B/app/emsolve exists, capped at its argument in seconds).
# The earlier scripts (device-s5.sh, device-check*.sh, ...) repeat this
# inline; new ones source it.
T0=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
cap() { local w=$1 l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 5 ] && w=5; echo "$w"; }
step() { echo "=== $* (t=$(($(date +%s) - T0)) s)"; }
# shellcheck disable=SC1091
[ -f .device/emdeps.tar.xz ] && . scripts/device-setup.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$L/device.txt"
PY=
for p in "$(command -v python3)" /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c "import numpy, scipy" 2> /dev/null && { PY=$p; break; }
done
[ -d /opt/emdeps/python ] && export PYTHONPATH=/opt/emdeps/python${PYTHONPATH:+:$PYTHONPATH}
dev_build() { # CAP_SECONDS
  [ -x "$B/app/emsolve" ] && return 0
  step build
  local G
  G=$(command -v ninja > /dev/null && echo "-G Ninja")
  # shellcheck disable=SC2086
  cmake -S . -B "$B" $G -DCMAKE_BUILD_TYPE=Release -DEMSOLVE_CUDA=ON ${PY:+-DEM_PYTHON3=$PY} > "$L/configure.log" 2>&1
  timeout "$(cap "$1")" cmake --build "$B" -j"$(nproc)" > "$L/build.log" 2>&1 ||
    { grep -E "error" "$L/build.log" | head; return 1; }
}
