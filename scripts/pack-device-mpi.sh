#!/bin/bash
# pack-device-mpi.sh - Debian's Open MPI runtime and MUMPS, packed for a GPU
# machine that has no MPI (the device machines reach no package registry):
# writes .device/mpi.tar.xz (git-ignored).  scripts/device-setup.sh unpacks
# it into /opt/emmpi when the machine has no mpirun of its own, and points
# the build (FindMPI through mpicc), the loader and Open MPI's relocation
# variables (OPAL_PREFIX ...) at it.
#
# What goes in (run from the project root; about 15 MB):
#   bin/      mpirun, mpiexec (orterun), orted, mpicc (opal_wrapper), ompi_info
#   lib/      libmpi and the libraries it and its plug-ins load (PMIx, hwloc,
#             libevent, UCX, libfabric ...), less the C runtime; MUMPS
#             (d/z/s/c), its PORD, ScaLAPACK, BLACS and what they load
#   lib/openmpi3/   Open MPI's MCA plug-ins;  lib/pmix/: PMIx's
#   lib/ucx/        UCX's transport modules
#   include/  mpi.h (and Open MPI's headers), the MUMPS headers
#   share/openmpi/  help texts and the compiler wrappers' data
#   etc/      openmpi-mca-params.conf, openmpi-default-hostfile
#   env.sh    the variables that make the tree relocatable (sourced by
#             scripts/device-setup.sh)
#
# scripts/pack-device-mpi.sh --check: the packed tree alone, with this
# machine's Open MPI, PMIx and UCX hidden (a mount namespace: root only):
# mpicc, FindMPI, a build of test_dist and test_dist on 3 ranks.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
lib=/usr/lib/x86_64-linux-gnu
if [ "${1:-}" = --check ]; then
  [ -f .device/mpi.tar.xz ] || { echo "no .device/mpi.tar.xz: pack first" >&2; exit 1; }
  exec unshare -m --propagation private bash -c '
    set -e
    L=/usr/lib/x86_64-linux-gnu
    for d in $L/openmpi /usr/share/openmpi /etc/openmpi $L/pmix2 $L/ucx; do mount -t tmpfs none $d; done
    for f in /usr/bin/orterun /usr/bin/orted /usr/bin/opal_wrapper $L/libmpi.so.40 \
      $L/libopen-pal.so.40 $L/libopen-rte.so.40 $L/libucp.so.0 $L/libucs.so.0 $L/libuct.so.0; do
      mount --bind /dev/null $f
    done
    t=$(mktemp -d)
    tar xJf .device/mpi.tar.xz -C $t
    export EMMPI=$t/emmpi
    . $EMMPI/env.sh
    echo "mpicc: $(command -v mpicc) -> $(mpicc --showme)"
    cmake -S . -B $t/build -DEMSOLVE_CUDA=OFF -DEMSOLVE_MPI=ON > $t/configure.log 2>&1 ||
      { tail -20 $t/configure.log; exit 1; }
    grep "Found MPI_C" $t/configure.log
    cmake --build $t/build -j2 --target test_dist > $t/build.log 2>&1 || { tail -20 $t/build.log; exit 1; }
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --oversubscribe -np 3 $t/build/tests/dist/test_dist 3
    rm -rf $t'
fi
for p in libopenmpi-dev openmpi-bin libmumps-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { echo "pack-device-mpi.sh: $p is not installed (scripts/install-deps.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=$tmp/emmpi
mkdir -p "$t"/{bin,lib/openmpi3,lib/pmix,lib/ucx,include,share/openmpi,etc}

# the programs (orterun is mpirun and mpiexec; opal_wrapper is mpicc by name)
cp -L /usr/bin/orterun /usr/bin/orted /usr/bin/opal_wrapper /usr/bin/ompi_info "$t/bin/"
(cd "$t/bin" && ln -sf orterun mpirun && ln -sf orterun mpiexec && ln -sf opal_wrapper mpicc)

# Open MPI's libraries, plug-ins, headers, data and configuration
cp -L $lib/libmpi.so.40 $lib/libopen-pal.so.40 $lib/libopen-rte.so.40 "$t/lib/"
cp -L $lib/libmca_common_*.so.?? "$t/lib/" 2>/dev/null || true
cp -L $lib/openmpi/lib/openmpi3/*.so "$t/lib/openmpi3/"
cp -a $lib/openmpi/include/. "$t/include/"
cp -a /usr/share/openmpi/. "$t/share/openmpi/"
cp -L /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$t/etc/"
cp -L $lib/pmix2/lib/pmix/*.so "$t/lib/pmix/" 2>/dev/null || true
cp -L $lib/ucx/*.so.0 "$t/lib/ucx/" 2>/dev/null || true
(cd "$t/lib" && ln -sf libmpi.so.40 libmpi.so)

# MUMPS (issue 27): the four arithmetics, their shared parts, the headers
for m in dmumps zmumps smumps cmumps mumps_common pord; do
  f=$(readlink -f $lib/lib$m.so)
  cp -L "$f" "$t/lib/"
  (cd "$t/lib" && ln -sf "$(basename "$f")" "lib$m.so")
done
cp /usr/include/*mumps*.h "$t/include/"

# the closure: every library the programs, libraries and plug-ins load,
# less the C runtime and the GPU driver (the machine's own)
skip='/libc\.so|/libm\.so|/libstdc\+\+|/libgcc_s|/libpthread|/libdl\.so|/librt\.so|/ld-linux|/libcuda\.so|/libnvidia'
for round in 1 2; do
  for f in "$t"/bin/* "$t"/lib/*.so* "$t"/lib/*/*.so*; do
    [ -f "$f" ] || continue
    { LD_LIBRARY_PATH="$t/lib" ldd "$f" 2>/dev/null || true; } | awk '$3 ~ /^\// {print $3}' |
      { grep -Ev "$skip" || true; } | while read -r d; do
        case "$d" in "$t"/*) continue ;; esac
        [ -e "$t/lib/$(basename "$d")" ] || cp -L "$d" "$t/lib/"
      done
  done
done

# relocation: Open MPI, PMIx and UCX find their parts under $EMMPI
cat > "$t/env.sh" << 'ENV'
# source with EMMPI set to where this tree lies (scripts/device-setup.sh)
export PATH=$EMMPI/bin:$PATH
export LD_LIBRARY_PATH=$EMMPI/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OPAL_PREFIX=$EMMPI OPAL_EXEC_PREFIX=$EMMPI OPAL_BINDIR=$EMMPI/bin OPAL_LIBDIR=$EMMPI/lib
export OPAL_INCLUDEDIR=$EMMPI/include OPAL_PKGLIBDIR=$EMMPI/lib/openmpi3
export OPAL_DATAROOTDIR=$EMMPI/share OPAL_DATADIR=$EMMPI/share OPAL_PKGDATADIR=$EMMPI/share/openmpi
export OPAL_SYSCONFDIR=$EMMPI/etc OPAL_PKGINCLUDEDIR=$EMMPI/include/openmpi
export OMPI_MCA_mca_base_component_path=$EMMPI/lib/openmpi3
export PMIX_MCA_mca_base_component_path=$EMMPI/lib/pmix
export UCX_MODULE_DIR=$EMMPI/lib/ucx
export MPI_HOME=$EMMPI
ENV
mkdir -p .device
tar -C "$tmp" -cJf .device/mpi.tar.xz emmpi
ls -l .device/mpi.tar.xz
