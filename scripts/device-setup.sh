# device-setup.sh - source this on the GPU machine (from the repository
# root): unpacks the carried libraries (.device/emdeps.tar.xz from
# ../shared/gpu/pack-deps.sh, .device/extras.tar.xz from
# scripts/pack-device-extras.sh) into /opt/emdeps and points the build and
# the loader at them.
#
# MPI (docs/mpi.md): the machine's own Open MPI when it has one (mpirun and
# mpicc on PATH or in a usual place: the multi-GPU machines have 4.1.6 with
# UCX and CUDA), else the runtime scripts/pack-device-mpi.sh packed
# (.device/mpi.tar.xz, into /opt/emmpi); EM_MPI_FROM says which.  The device
# runs as root: Open MPI is allowed to (OMPI_ALLOW_RUN_AS_ROOT).
mkdir -p /opt
[ -d /opt/emdeps ] || tar xJf .device/emdeps.tar.xz -C /opt
[ -f .device/extras.tar.xz ] && tar xJf .device/extras.tar.xz -C /opt
export LD_LIBRARY_PATH=/opt/emdeps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CMAKE_PREFIX_PATH=/opt/emdeps
EM_MPI_FROM=none
for d in "$(dirname "$(command -v mpirun 2> /dev/null || echo /none/mpirun)")" /usr/local/mpi/bin \
  /opt/hpcx/ompi/bin /opt/openmpi/bin /usr/mpi/gcc/openmpi-*/bin /usr/lib64/openmpi/bin; do
  if [ -x "$d/mpirun" ] && [ -x "$d/mpicc" ]; then
    EM_MPI_FROM="machine ($d)"
    export PATH=$d:$PATH MPI_HOME=${d%/bin}
    # its libraries after the carried ones (never /usr/lib ahead of /opt/emdeps)
    [ "$MPI_HOME" != /usr ] && [ -d "$MPI_HOME/lib" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$MPI_HOME/lib
    break
  fi
done
if [ "$EM_MPI_FROM" = none ] && [ -f .device/mpi.tar.xz ]; then
  [ -d /opt/emmpi ] || tar xJf .device/mpi.tar.xz -C /opt
  export EMMPI=/opt/emmpi
  . /opt/emmpi/env.sh
  EM_MPI_FROM="packed (/opt/emmpi, Debian's Open MPI)"
fi
export EM_MPI_FROM OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
