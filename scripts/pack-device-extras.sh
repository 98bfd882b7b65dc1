#!/bin/bash
# pack-device-extras.sh - Debian's reference LAPACK and BLAS (and the
# Fortran runtime they need) for the GPU machine, which has none, so that the
# LAPACK-based tests (e.g. test_solver_ksp_gpu) build there too.  Writes
# .device/extras.tar.xz (git-ignored); unpack it over /opt/emdeps next to the
# Gmsh/METIS bundle of ../shared/gpu/pack-deps.sh (scripts/device-setup.sh).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
d=$tmp/emdeps/lib; mkdir -p "$d"
cp -L /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 "$d/liblapack.so.3"
cp -L /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 "$d/libblas.so.3"
cp -L /usr/lib/x86_64-linux-gnu/libgfortran.so.5 /usr/lib/x86_64-linux-gnu/libquadmath.so.0 "$d/"
(cd "$d" && ln -sf liblapack.so.3 liblapack.so && ln -sf libblas.so.3 libblas.so)
mkdir -p .device
tar -C "$tmp" -cJf .device/extras.tar.xz emdeps
ls -l .device/extras.tar.xz
