#!/bin/bash
# device-accuracy-study.sh - the DRA box-independence and convergence study
# of issue 17 on the device machine (docs/validation.md, "DRA box
# independence"), and the default case's run time with the old and the new
# PML settings.  Usage, from the repository root after device-setup.sh:
#   scripts/device-accuracy-study.sh BUILD_DIR RESULT_DIR DEADLINE_S [PART]
# PART 1 (the first call): old vs PML 15 mm / 3 elements, the box and the
# convergence runs; PART 2 (the second): old vs PML 20 mm (and a finer
# probe mesh), their box and probe-size runs, order 3 at 10 elements per
# wavelength.
# Phase 1 (alone on the machine): the default case `emsolve cases/dra.geo`
# on the GPU, old (PML 10 mm, PML/elements 0) then new (15 mm, 3).
# Phase 2, side by side: the same on the host (--device cpu, 8 threads on
# cores 0-7, old and new twice, alternating), and the study on cores 8-15
# and the GPU: 7-frequency sweeps 5.60-5.90 GHz (mesh sized for 7.5 GHz, no
# far field), two lanes (order 2, order 3) of 4 threads each.  Each run
# leaves RESULT_DIR/<tag>.json (summary.json) and <tag>.log; the caller tars
# RESULT_DIR.  Runs still going at DEADLINE_S seconds are left running.
set -u
B=$1
R=$2
DEADLINE=$3
PART=${4:-1}
EM=$B/app/emsolve
mkdir -p "$R"
T0=$(date +%s)
old=(-setnumber Geometry/pml_thickness 10 -setnumber PML/elements 0)
new=(-setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3)
band=(-setnumber Solver/f_start 5.60e9 -setnumber Solver/f_stop 5.90e9 -setnumber Solver/n_freq 7
  -setnumber Mesh/frequency 7.5e9 -setstring Output/fields none -setstring Farfield/compute off)

# one run: TAG then emsolve's arguments; summary and log kept under R
one() {
  local tag=$1
  shift
  local left=$((DEADLINE - ($(date +%s) - T0)))
  [ $left -gt 20 ] || return 0
  local t=$(date +%s.%N)
  timeout $left "$EM" cases/dra.geo --out /tmp/acc-$tag "$@" >"$R/$tag.log" 2>&1
  local rc=$?
  echo "wall_s $(awk "BEGIN{print $(date +%s.%N) - $t}") rc $rc" >>"$R/$tag.log"
  [ -f /tmp/acc-$tag/summary.json ] && cp /tmp/acc-$tag/summary.json "$R/$tag.json"
  rm -rf /tmp/acc-$tag
}

nproc >"$R/machine.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >>"$R/machine.txt" 2>&1
lscpu | grep -i 'model name' >>"$R/machine.txt"

if [ "$PART" = 1 ]; then
# phase 1: the default case on the GPU, alone
OMP_NUM_THREADS=16 one time-gpu-old --device gpu "${old[@]}"
OMP_NUM_THREADS=16 one time-gpu-new --device gpu "${new[@]}"

# phase 2: the default case on the host, cores 0-7, beside the study
# cpu_lane VARIANT...: each variant (an array of options) twice, on cores 0-7
cpu_lane() {
  for k in 1 2; do
    for v in "$@"; do
      local -n a=$v
      local left=$((DEADLINE - ($(date +%s) - T0)))
      [ $left -gt 60 ] || return 0
      local t=$(date +%s.%N)
      OMP_NUM_THREADS=8 timeout $left taskset -c 0-7 "$EM" cases/dra.geo --device cpu \
        --out /tmp/acc-cpu-$v-$k "${a[@]}" >"$R/time-cpu-$v-$k.log" 2>&1
      local rc=$?
      echo "wall_s $(awk "BEGIN{print $(date +%s.%N) - $t}") rc $rc" >>"$R/time-cpu-$v-$k.log"
      [ -f /tmp/acc-cpu-$v-$k/summary.json ] &&
        cp /tmp/acc-cpu-$v-$k/summary.json "$R/time-cpu-$v-$k.json"
      rm -rf /tmp/acc-cpu-$v-$k
    done
  done
}
o2_lane() {
  local s=(--device gpu -setnumber Solver/order 2)
  one o2-m8-p15-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o2-m14-p15-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o2-m8-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber PML/elements 3
  one o2-m8-p10-e0 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 0
  one o2-m8-p15-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 2
  one o2-m14-p15-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 2
  one o2-m8-p20-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber PML/elements 2
  one o2-epw8-m8-p15-e3 "${s[@]}" "${band[@]}" -setnumber Mesh/elements_per_wavelength 8 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o2-m8-p10-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 3
  one o2-m8-p10-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 2
  one o2-epw10-m8-p15-e3 "${s[@]}" "${band[@]}" -setnumber Mesh/elements_per_wavelength 10 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o2-m14-p10-e0 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 0
}
o3_lane() {
  local s=(--device gpu -setnumber Solver/order 3)
  one o3-m8-p15-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o3-m14-p15-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o3-m8-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber PML/elements 3
  one o3-m8-p10-e0 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 0
  one o3-epw8-m8-p15-e3 "${s[@]}" "${band[@]}" -setnumber Mesh/elements_per_wavelength 8 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 3
  one o3-m8-p15-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 2
  one o3-m14-p15-e2 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 15 -setnumber PML/elements 2
  one o3-m8-p10-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10 -setnumber PML/elements 3
}
else
# part 2: the default case, old vs PML 20 mm / 3 elements (the same mesh as
# 20 mm sized from the wavelength) and that with the probe meshed at 0.25 mm
p20=(-setnumber Geometry/pml_thickness 20 -setnumber PML/elements 3)
p20hp=(-setnumber Geometry/pml_thickness 20 -setnumber PML/elements 3 -setnumber Mesh/probe_size 0.25)
OMP_NUM_THREADS=16 one time-gpu-old --device gpu "${old[@]}"
OMP_NUM_THREADS=16 one time-gpu-p20 --device gpu "${p20[@]}"
OMP_NUM_THREADS=16 one time-gpu-p20hp --device gpu "${p20hp[@]}"
o2_lane() {
  local s=(--device gpu -setnumber Solver/order 2 -setnumber PML/elements 3)
  one o2-m14-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 20
  one o2-m8-p25-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 25
  one o2-m8-p20-e3-hp035 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/probe_size 0.35
  one o2-m8-p20-e3-hp025 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/probe_size 0.25
  one o2-m14-p20-e3-hp025 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 20 -setnumber Mesh/probe_size 0.25
  one o2-m8-p25-e3-hp025 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 25 -setnumber Mesh/probe_size 0.25
  one o2-epw7-m8-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/elements_per_wavelength 7
  one o2-epw8-m8-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/elements_per_wavelength 8
  one o2-m8-p20-e3-hp018 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/probe_size 0.18
  one o2-epw8-m8-p20-e3-hp025 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/elements_per_wavelength 8 -setnumber Mesh/probe_size 0.25
}
o3_lane() {
  local s=(--device gpu -setnumber Solver/order 3 -setnumber PML/elements 3)
  one o3-m8-p20-e3-hp025 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/probe_size 0.25
  one o3-epw10-m8-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 20 -setnumber Mesh/elements_per_wavelength 10
  one o3-m14-p20-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/margin 14 -setnumber Geometry/pml_thickness 20
  one o3-m8-p10-e3 "${s[@]}" "${band[@]}" -setnumber Geometry/pml_thickness 10
}
fi
cpu_lane old p20 p20hp &
OMP_NUM_THREADS=4 taskset -c 8-11 bash -c "$(declare -f one o2_lane); $(declare -p EM R T0 DEADLINE band); o2_lane" &
OMP_NUM_THREADS=4 taskset -c 12-15 bash -c "$(declare -f one o3_lane); $(declare -p EM R T0 DEADLINE band); o3_lane" &
wait
