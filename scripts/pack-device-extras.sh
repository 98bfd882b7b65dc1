#!/bin/bash
# pack-device-extras.sh - Debian's reference LAPACK and BLAS (and the
# Fortran runtime they need) and M4RI (libm4ri-dev: its shared library, what
# it links that the system may lack, and its headers) for the GPU machine,
# which has none, so that the LAPACK-based tests (e.g. test_solver_ksp_gpu),
# test_gf2_m4ri (_gpu) and gf2_bench's M4RI column build there too; and
# Debian's meshio with rich (pure Python, in emdeps/python) for the physics
# tests that read VTK back with --device gpu (scripts/device-house.sh adds
# it to PYTHONPATH where the machine's python3 lacks meshio).  Writes
# .device/extras.tar.xz (git-ignored); unpack it over /opt/emdeps next to the
# Gmsh/METIS bundle of ../shared/gpu/pack-deps.sh (scripts/device-setup.sh).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
lib=/usr/lib/x86_64-linux-gnu
for p in liblapack-dev libblas-dev libm4ri-dev python3-meshio python3-rich; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { echo "pack-device-extras.sh: $p is not installed (scripts/install-deps.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
d=$tmp/emdeps/lib; mkdir -p "$d" "$tmp/emdeps/include"
cp -L $lib/lapack/liblapack.so.3 "$d/liblapack.so.3"
cp -L $lib/blas/libblas.so.3 "$d/libblas.so.3"
cp -L $lib/libgfortran.so.5 $lib/libquadmath.so.0 "$d/"
(cd "$d" && ln -sf liblapack.so.3 liblapack.so && ln -sf libblas.so.3 libblas.so)
# M4RI: libm4ri-<version>.so (its soname), the libm4ri.so link for the
# linker, its closure less the C runtime (libpng16, libz), the headers in
# include/m4ri/ (find_path(m4ri/m4ri.h) with CMAKE_PREFIX_PATH=/opt/emdeps)
m4ri=$(readlink -f $lib/libm4ri.so)
cp -L "$m4ri" "$d/"
(cd "$d" && ln -sf "$(basename "$m4ri")" libm4ri.so)
skip='/libc\.so|/libm\.so|/libstdc\+\+|/libgcc_s|/libpthread|/libdl\.so|/librt\.so|/ld-linux'
for f in $(ldd "$m4ri" | awk '{print $3}' | grep '^/' | grep -Ev "$skip" || true); do
  cp -L "$f" "$d/"
done
cp -r /usr/include/m4ri "$tmp/emdeps/include/"
mkdir -p "$tmp/emdeps/python"
for m in meshio rich; do
  cp -r "/usr/lib/python3/dist-packages/$m" "$tmp/emdeps/python/"
done
find "$tmp/emdeps/python" -name __pycache__ -prune -exec rm -rf {} +
# Debian 12's meshio 5.3 calls np.string_, which NumPy 2 (the GPU machine's
# python) removed; np.bytes_ is the same type in NumPy 1 and 2.
sed -i 's/np\.string_(/np.bytes_(/g' "$tmp/emdeps/python/meshio/med/_med.py"
mkdir -p .device
tar -C "$tmp" -cJf .device/extras.tar.xz emdeps
ls -l .device/extras.tar.xz
