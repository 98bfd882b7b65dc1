#!/bin/sh
# run.sh BIN TAG NP [extra]: the DRA at order 2, one frequency, NP ranks; RSS per rank
BIN=$1; TAG=$2; NP=$3; shift 3
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
S="-setnumber Solver/order 2 -setnumber Solver/n_freq 1 -setnumber Solver/f_start 6e9 -setnumber Solver/f_stop 6e9 -setstring Output/fields none"
rm -rf out_$TAG
if [ "$NP" = 1 ]; then
  /usr/bin/time -v -o rss_$TAG.0 $BIN /work/dsolve/cases/dra.geo --out out_$TAG --device cpu $S --verbose "$@" > log_$TAG 2>&1
else
  mpiexec --oversubscribe -np $NP sh -c "/usr/bin/time -v -o rss_$TAG.\$OMPI_COMM_WORLD_RANK $BIN /work/dsolve/cases/dra.geo --out out_$TAG --device cpu $S --verbose $*" > log_$TAG 2>&1
fi
echo "== $TAG ($NP ranks), exit $?"
for f in rss_$TAG.*; do echo "$f: $(grep 'Maximum resident' $f | awk '{print $NF}') kB, wall $(grep Elapsed $f | awk '{print $NF}')"; done
grep -E "\] assembly: [0-9.]+ s|assembly: order|solve: |distributed solve:" log_$TAG
grep -v '^!' out_$TAG/dra.s1p | tail -1
