#!/bin/bash
# What each part of a first creation across nodes costs in wall time: the
# library at BASE (default f42b3ae) with floor.patch applied, which reads
# NBRCOLL_EXP_FLOOR (an experiment's setting, never on main):
#   agree  no node lists, no planners: linear plans, then the agreement
#   none   no node lists, no planners, no agreement (linear, tags 0)
#   plan   node lists and every planner as at BASE, no agreement (then linear)
#   defer  as plan, with the agreement's allreduce started at creation as an
#          MPI_Iallreduce and waited for at MPI_Comm_free
#   iwait  as BASE, the allreduce an MPI_Iallreduce + MPI_Wait
# each against BASE itself (creation-lazy/ab.sh: old, new, old, new; the
# creation table's paired ratios; 2 x 8 emulated nodes at 1 Gbit/s and 16
# ranks on one host as 2 emulated nodes). Calls on a graph without the
# agreement run linear, so only the creation rows compare set-ups alone.
#   run.sh OUT [MODE...]      (root: network namespaces)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
modes=${*:-agree none plan defer iwait}
base=${BASE:-f42b3ae}
tree=$(mktemp -d)
git -C "$here" worktree add -f "$tree" "$base" >/dev/null
git -C "$tree" apply "$here/floor.patch"
cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBRCOLL_BUILD_TESTS=OFF >/dev/null
cmake --build "$tree/build" -j2 --target nbrcoll nbrcoll-bench >/dev/null
mkdir -p "$out"
for m in $modes; do
  printf '#!/bin/bash\nexport NBRCOLL_EXP_FLOOR=%s\nexec %s "$@"\n' "$m" "$tree/build/bin/nbrcoll-bench" > "$out/bench-$m"
  chmod +x "$out/bench-$m"
  WHERE="cluster onehost-2x8" bash "$here/../creation-lazy/ab.sh" "$tree/build/bin/nbrcoll-bench" "$out/bench-$m" \
    > "$out/$m-1.txt" 2>&1
done
python3 "$here/table.py" "$out"/*-1.txt
git -C "$here" worktree remove --force "$tree"
