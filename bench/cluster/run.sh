#!/usr/bin/env bash
# Emulated cluster on one host: N "nodes", each a network namespace with its
# own hostname, joined by a bridge (veth pairs) whose per-node links are
# capped with tc (the NIC), and mpirun started in a namespace of its own.
# Everything is created with a per-run suffix and always torn down.
#
#   bench/cluster/run.sh [--nodes N] [--ranks-per-node K] [--rate 1gbit]
#                        [--burst 256kb] [--delay 0ms] [--np P] -- PROGRAM ARGS...
#
# --burst: the token bucket of each capped link (tc tbf), what a link
# passes at once after a pause before the rate holds it.
# Ranks [0,K) run on node 0, [K,2K) on node 1, ... Without network namespaces
# (no root, no CAP_SYS_ADMIN, a locked-down container) it says so and falls
# back to emulated nodes on one host (NBRCOLL_RANKS_PER_NODE=K, no rate cap).
# Extra mpirun options can be given in NBRCOLL_CLUSTER_MPIRUN_ARGS.
# NBRCOLL_MPI=mpich launches with MPICH's Hydra (mpiexec.mpich) instead of
# Open MPI's mpirun (the default, NBRCOLL_MPI=openmpi); there a job whose
# ranks all wrote finalize markers but that hangs in MPI_Finalize is ended
# after NBRCOLL_CLUSTER_FINALIZE_GRACE seconds (20; see bench/README.md).
set -euo pipefail

nodes=2 per_node=8 rate=1gbit burst=256kb delay="" np=""
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --ranks-per-node) per_node=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --burst) burst=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "run.sh: no program given (put it after --)" >&2; exit 2; }
[[ "$nodes" =~ ^[0-9]+$ && "$nodes" -ge 1 && "$nodes" -le 64 ]] || { echo "run.sh: --nodes must be 1..64" >&2; exit 2; }
[[ "$per_node" =~ ^[0-9]+$ && "$per_node" -ge 1 ]] || { echo "run.sh: --ranks-per-node must be >= 1" >&2; exit 2; }
np=${np:-$((nodes * per_node))}

mpi=${NBRCOLL_MPI:-openmpi}
[[ "$mpi" == openmpi || "$mpi" == mpich ]] || { echo "run.sh: NBRCOLL_MPI must be openmpi or mpich" >&2; exit 2; }
grace=${NBRCOLL_CLUSTER_FINALIZE_GRACE:-20}   # MPICH only, see the wait at the end
[[ "$mpi" == openmpi || "$grace" =~ ^[0-9]+$ ]] ||
  { echo "run.sh: NBRCOLL_CLUSTER_FINALIZE_GRACE must be seconds" >&2; exit 2; }

root_args=()
[[ $(id -u) -eq 0 && "$mpi" == openmpi ]] && root_args=(--allow-run-as-root)

# Pass the program's NBRCOLL_* settings on to the ranks (Hydra passes its
# whole environment without being asked).
env_args=()
while IFS='=' read -r name _; do
  [[ "$mpi" == openmpi && "$name" == NBRCOLL_* && "$name" != NBRCOLL_RANKS_PER_NODE && "$name" != NBRCOLL_CLUSTER_* ]] && env_args+=(-x "$name")
done < <(env)

# Resolve the program to an absolute path: the ranks start elsewhere.
prog=$1; shift
prog_args=("$@")
if [[ "$prog" == */* ]]; then
  [[ -x "$prog" ]] || { echo "run.sh: '$prog' is not an executable" >&2; exit 2; }
  prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
fi

fallback() {
  echo "run.sh: $1" >&2
  echo "run.sh: falling back to emulated nodes on one host (NBRCOLL_RANKS_PER_NODE=$per_node, no link cap)" >&2
  export NBRCOLL_RANKS_PER_NODE=$per_node
  [[ "$mpi" == mpich ]] && exec mpiexec.mpich -n "$np" ${NBRCOLL_CLUSTER_MPIRUN_ARGS:-} "$prog" "${prog_args[@]}"
  exec mpirun "${root_args[@]}" --oversubscribe -np "$np" -x NBRCOLL_RANKS_PER_NODE "${env_args[@]}" \
    ${NBRCOLL_CLUSTER_MPIRUN_ARGS:-} "$prog" "${prog_args[@]}"
}

# --- can we make namespaces here? --------------------------------------------
id="nb$(printf '%04x%04x' $(( $$ & 0xffff )) $(( RANDOM & 0xffff )))"
command -v ip >/dev/null && command -v tc >/dev/null && command -v unshare >/dev/null ||
  fallback "ip, tc or unshare is missing"
if ! ip netns add "${id}probe" 2>/dev/null; then fallback "network namespaces are not available here (ip netns add failed)"; fi
ip netns del "${id}probe"

# --- build -----------------------------------------------------------------
subnet=10.147.0            # exists only inside this run's namespaces
work=/tmp/$id
sw=${id}sw head=${id}hd
created=()
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for ns in "${created[@]}"; do
    # Processes this run started inside its namespaces (orted, ranks).
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n "$pids" ]] && kill $pids 2>/dev/null || true
  done
  sleep 0.2
  for ns in "${created[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n "$pids" ]] && kill -9 $pids 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work"
newns() { ip netns add "$1"; created+=("$1"); ip -n "$1" link set lo up; }

newns "$sw"
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up

hosts="127.0.0.1 localhost"$'\n'
node_name() { echo "n$1-$id"; }
for ((i = 0; i < nodes; ++i)); do hosts+="$subnet.$((10 + i)) $(node_name "$i")"$'\n'; done
hosts+="$subnet.2 h-$id"$'\n'

# attach NS IP CAP: a veth from NS (eth0, address IP) to the bridge; CAP "yes"
# limits both directions to $rate with a token bucket.
attach() {
  local ns=$1 ip=$2 cap=$3 n=$4
  ip link add "${id}a$n" netns "$ns" type veth peer name "${id}b$n" netns "$sw"
  ip -n "$ns" link set "${id}a$n" name eth0
  ip -n "$ns" addr add "$ip/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$sw" link set "${id}b$n" master br0 up
  if [[ "$cap" == yes ]]; then
    local extra=()
    [[ -n "$delay" ]] && extra=(netem delay "$delay")
    # node -> switch (upload) and switch -> node (download)
    tc -n "$ns" qdisc add dev eth0 root handle 1: tbf rate "$rate" burst "$burst" latency 100ms
    tc -n "$sw" qdisc add dev "${id}b$n" root handle 1: tbf rate "$rate" burst "$burst" latency 100ms
    [[ -n "$delay" ]] && tc -n "$ns" qdisc add dev eth0 parent 1:1 handle 10: "${extra[@]}"
  fi
  mkdir -p "/etc/netns/$ns"
  printf '%s' "$hosts" > "/etc/netns/$ns/hosts"
}

newns "$head"
attach "$head" "$subnet.2" no h
for ((i = 0; i < nodes; ++i)); do
  newns "${id}n$i"
  attach "${id}n$i" "$subnet.$((10 + i))" yes "$i"
  mkdir -p "$work/$(node_name "$i")"
  if [[ "$mpi" == mpich ]]; then
    echo "$(node_name "$i"):$per_node" >> "$work/hostfile"
  else
    echo "$(node_name "$i") slots=$per_node" >> "$work/hostfile"
  fi
done

# The launcher: mpirun calls it as `agent HOST COMMAND...`, Hydra as ssh
# (`agent -x HOST COMMAND...`); it runs the command in HOST's namespace with
# HOST's own hostname and shared-memory dir.
cat > "$work/agent" <<AGENT
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case "\$host" in
  n*-$id) i=\${host%%-*}; i=\${i#n} ;;
  *) echo "agent: unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "${id}n\$i" unshare --uts sh -c "hostname \$host; export OMPI_MCA_btl_vader_backing_directory=$work/\$host; \$*"
AGENT
chmod +x "$work/agent"

echo "run.sh: $nodes nodes x $per_node ranks, links capped at $rate${delay:+, delay $delay} (namespaces ${id}*, subnet $subnet.0/24)$([[ "$mpi" == mpich ]] && echo ", MPICH's Hydra")" >&2
# mpirun runs in the background so that a signal to this script interrupts
# `wait` at once and the EXIT trap tears everything down (it kills mpirun too).
if [[ "$mpi" == mpich ]]; then
  # Hydra starts its proxies through the agent as it would through ssh and
  # hands them its environment (the nodes are real here: no RANKS_PER_NODE).
  # MPICH moves data between ranks of one node itself; UCX carries the rest.
  # UCX's shared memory and CMA take every namespace of this host for one
  # machine (same boot id), so only UCX_TLS=tcp makes bytes cross the links;
  # 127.0.0.1 is another host in each namespace: UCX keeps to eth0.
  # Programs that write finalize markers (nbrcoll-bench does) tell us when
  # every rank has reached MPI_Finalize; see wait_mpich below.
  markers=$work/finalize
  mkdir -p "$markers"
  launch=(env -u NBRCOLL_RANKS_PER_NODE mpiexec.mpich -n "$np" -f "$work/hostfile"
    -launcher ssh -launcher-exec "$work/agent"
    -genv UCX_TLS "${UCX_TLS:-tcp}" -genv UCX_NET_DEVICES "${UCX_NET_DEVICES:-eth0}"
    -genv NBRCOLL_CLUSTER_FINALIZE_DIR "$markers")
else
  launch=(mpirun "${root_args[@]}" -np "$np" --hostfile "$work/hostfile" --bind-to none
    --mca plm_rsh_agent "$work/agent" --mca plm_rsh_no_tree_spawn 1
    --mca btl self,vader,tcp --mca pml ob1
    --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24"
    --mca mpi_yield_when_idle 1
    "${env_args[@]}")
fi
ip netns exec "$head" unshare --uts sh -c 'hostname "$0"; exec "$@"' "h-$id" \
  "${launch[@]}" ${NBRCOLL_CLUSTER_MPIRUN_ARGS:-} "$prog" "${prog_args[@]}" < /dev/null &
launcher=$!

# MPICH 4.0.2 (ch4:ucx over TCP) can hang in MPI_Finalize after the program
# is done: ranks that have closed their UCX endpoints wait in a PMI barrier
# while a peer still waits for them to answer its endpoint close (fixed
# upstream by pmodels/mpich#6596; no setting of 4.0.2 or UCX 1.13 avoids
# it). A program that writes $NBRCOLL_CLUSTER_FINALIZE_DIR/finalize.RANK
# (its exit status) just before MPI_Finalize lets us tell that hang apart:
# once every rank's marker is there and mpiexec has not returned within
# NBRCOLL_CLUSTER_FINALIZE_GRACE seconds (20), the job is ended here and the
# run's status is the ranks' own (the first non-zero one, else 0). Missing
# markers (a failure or hang before MPI_Finalize) change nothing.
if [[ "$mpi" == mpich ]]; then
  all_since=""
  while kill -0 "$launcher" 2>/dev/null; do
    if [[ -z "$all_since" ]]; then
      n=0
      for ((r = 0; r < np; ++r)); do
        if [[ -e "$markers/finalize.$r" ]]; then n=$((n + 1)); fi
      done
      if [[ $n -eq $np ]]; then all_since=$SECONDS; fi
    elif (( SECONDS - all_since >= grace )); then
      kill -KILL "$launcher" 2>/dev/null || true
      wait "$launcher" 2>/dev/null || true
      rc=0
      for ((r = 0; r < np; ++r)); do
        s=$(head -n 1 "$markers/finalize.$r" 2>/dev/null || true)
        if [[ "$s" =~ ^[0-9]+$ && "$s" -ne 0 ]]; then rc=$s; break; fi
      done
      echo "run.sh: MPICH 4.0.2 hung in MPI_Finalize after every rank finished (known MPICH ch4/ucx bug, fixed upstream by pmodels/mpich#6596); job ended by run.sh" >&2
      exit "$rc"   # the EXIT trap ends the ranks and proxies in our namespaces
    fi
    sleep 1
  done
fi
set +e
wait "$launcher"
rc=$?
set -e
exit $rc
