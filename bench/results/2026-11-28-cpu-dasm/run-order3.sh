#!/bin/sh
# run3.sh BIN TAG NP: the order-3 DRA (default mesh), one frequency, Jacobi and 20 iterations (the
# solve is not the point: assembly, operator and memory per rank)
BIN=$1; TAG=$2; NP=$3; shift 3
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
S="-setnumber Solver/order 3 -setnumber Solver/n_freq 1 -setnumber Solver/f_start 6e9 -setnumber Solver/f_stop 6e9 -setstring Output/fields none -setstring Farfield/compute off -setstring Solver/preconditioner jacobi -setnumber Solver/max_iterations 20 -setstring Solver/distributed on"
rm -rf out_$TAG
if [ "$NP" = 1 ]; then
  /usr/bin/time -v -o rss_$TAG.0 $BIN /work/dsolve/cases/dra.geo --out out_$TAG --device cpu $S --verbose "$@" > log_$TAG 2>&1
else
  mpiexec --oversubscribe -np $NP sh -c "/usr/bin/time -v -o rss_$TAG.\$OMPI_COMM_WORLD_RANK $BIN /work/dsolve/cases/dra.geo --out out_$TAG --device cpu $S --verbose $*" > log_$TAG 2>&1
fi
echo "== $TAG ($NP ranks), exit $?"
for f in rss_$TAG.*; do echo "$f: $(grep 'Maximum resident' $f | awk '{print $NF}') kB, wall $(grep Elapsed $f | awk '{print $NF}')"; done
grep -E "\] assembly: [0-9.]+ s|assembly: order|\] mesh: [0-9.]+ s|operator: [0-9.]+ s|memory peak|unknowns \(" log_$TAG
