#!/bin/sh
# Install the Debian packages emsolve needs when they are missing.  As root
# it installs them; otherwise it names them and fails.
set -eu
# MPI (dist/, docs/mpi.md): Debian's Open MPI and MUMPS (the distributed
# direct solver of issue 27)
PKGS="cmake make gcc g++ libgmsh-dev libmetis-dev liblapack-dev libblas-dev libopenblas-dev libm4ri-dev
      python3 python3-numpy python3-scipy python3-meshio python3-matplotlib clang-format
      libopenmpi-dev openmpi-bin libmumps-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "emsolve needs these Debian packages:$missing" >&2
  echo "run 'make' as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
