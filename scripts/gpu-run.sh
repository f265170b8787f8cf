#!/usr/bin/env bash
# nbrcoll's GPU self-test from the kit that scripts/gpu-kit.sh packs (this
# file is the kit's gpu-run.sh): on a GPU node with no MPI and nothing
# installed, it runs nbrcoll-selftest at 1, 2, 4 and 8 ranks (4 and 8 as two
# emulated nodes: IPC inside, MPI between) within 10 minutes, and leaves the
# report in one folder. Nothing is unpacked or installed: every program runs
# through the kit's own loader (lib/ld-linux-x86-64.so.2) with the kit's lib/
# as its library path, Open MPI reads its settings and plugins from the kit,
# and only the GPU driver (libcuda.so.1) comes from the machine.
#
#   bash KIT/gpu-run.sh [--device cuda|hip|fake] [--ranks "1 2 4 8"] [--quick]
#                       [--time-limit SECONDS] [OUT]
#   bash KIT/gpu-run.sh --mpirun NP [--preload LIB] PROGRAM [ARGS...]
#
# --mpirun runs one of the kit's programs (bin/PROGRAM, e.g. nbrcoll-bench;
# or a path to a program built here against Open MPI) on NP ranks under the
# kit's Open MPI and libraries, with the same isolation, and exits with its
# status: CPU timings on the GPU machine's cores, which may be more than a
# build machine's. --preload LIB loads LIB first in every rank (a
# libnbrcoll under an unchanged MPI program, as LD_PRELOAD would).
#
# OUT (default ./nbrcoll-gpu-report-DATE) receives at most 7 files:
# report.md (every run's report, to paste into bench/RESULTS.md), selftest.csv
# and bench.csv (every run's rows, a column names the ranks), summary.txt
# (one line per run), kit.txt (the machine, the GPU, the kit), log.txt
# (everything printed) and runs.tar.gz (each run's own files). Exit status 0
# only if every run passed and took its MPI from the kit.
# Where the kit's CUDA plugin cannot start (a driver older than the toolkit
# the kit was built with) and nvcc is here, the plugin is rebuilt from the
# kit's sources (into OUT/runs/plugin), and the runs use that one.
set -uo pipefail
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
device=cuda
ranks="1 2 4 8"
quick=()
limit=600
out=""
exec_np=""
exec_cmd=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --device) device="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --time-limit) limit="$2"; shift 2 ;;
    --mpirun) exec_np="$2"; shift 2; exec_cmd=("$@"); break ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
if [[ -z "$exec_np" ]]; then
  out="${out:-$PWD/nbrcoll-gpu-report-$(date -u +%Y%m%d-%H%M%S)}"
  mkdir -p "$out/runs" || exit 2
  out="$(cd "$out" && pwd -P)"
fi

loader="$kit/lib/ld-linux-x86-64.so.2"
libpath="$kit/lib"
# The driver's folder, where the machine's loader cache may not name it (a
# container's LD_LIBRARY_PATH): after the kit's, so nothing else comes from it first.
for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/local/nvidia/lib64 /usr/lib/wsl/lib; do
  if [[ -e "$d/libcuda.so.1" ]]; then
    libpath="$libpath:$d"
    break
  fi
done
unset LD_LIBRARY_PATH LD_PRELOAD
# Open MPI, PMIx and hwloc: everything from the kit, nothing from /etc,
# /usr or the home folder.
export OPAL_PREFIX="$kit" OPAL_EXEC_PREFIX="$kit" OPAL_BINDIR="$kit/bin" OPAL_LIBDIR="$kit/lib"
export OPAL_PKGLIBDIR="$kit/lib/openmpi3" OPAL_DATAROOTDIR="$kit/share" OPAL_DATADIR="$kit/share"
export OPAL_PKGDATADIR="$kit/share/openmpi" OPAL_SYSCONFDIR="$kit/etc"
export OMPI_MCA_mca_base_component_path="$kit/lib/openmpi3"
export OMPI_MCA_mca_base_param_files="$kit/etc/openmpi-mca-params.conf"
export PMIX_PREFIX="$kit" PMIX_EXEC_PREFIX="$kit" PMIX_LIBDIR="$kit/lib" PMIX_DATADIR="$kit/share"
export PMIX_PKGLIBDIR="$kit/lib/pmix" PMIX_PKGDATADIR="$kit/share/pmix" PMIX_SYSCONFDIR="$kit/etc"
export PMIX_MCA_mca_base_component_path="$kit/lib/pmix"
export PMIX_MCA_mca_base_param_files="$kit/etc/pmix-mca-params.conf"
export HWLOC_PLUGINS_PATH="$kit/lib/hwloc"  # none: no plugin of the machine's hwloc
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NBRCOLL_ROCM_SMI_LIB=none
# The kit's programs, through the kit's loader.
kit_run() { "$loader" --library-path "$libpath" "$@"; }

if [[ -n "$exec_np" ]]; then
  preload=()
  if [[ "${exec_cmd[0]:-}" == --preload ]]; then
    preload=(--preload "${exec_cmd[1]:-}")
    exec_cmd=("${exec_cmd[@]:2}")
  fi
  program="${exec_cmd[0]:-}"
  [[ -n "$program" && -x "$kit/bin/$program" ]] && program="$kit/bin/$program"
  [[ -n "$program" && -x "$program" ]] || {
    echo "gpu-run.sh: --mpirun NP PROGRAM: no program '${exec_cmd[0]:-}' in $kit/bin or as given" >&2
    exit 2
  }
  kit_run "$kit/bin/orterun" -np "$exec_np" --oversubscribe "$loader" --library-path "$libpath" "${preload[@]}" \
    "$program" "${exec_cmd[@]:1}"
  exit $?
fi

main() {
  local start plugin np rpn left runs_left budget rc status=0 t0 name summary mpi_lib
  start=$(date +%s)
  echo "gpu-run.sh: kit $kit, device $device, ranks $ranks, report $out"
  if ! kit_run "$kit/bin/nbrcoll-selftest" --version; then
    echo "gpu-run.sh: the kit's loader cannot run its programs on this machine" >&2
    return 1
  fi
  machine_facts > "$out/kit.txt" 2>&1
  plugin="$kit/lib/libnbrcoll-$device.so"
  [[ "$device" == fake ]] && plugin="$kit/lib/libnbrcoll-fake-device.so"
  if [[ "$device" == cuda && ! -f "$plugin" ]]; then
    plugin="$(rebuild_cuda_plugin)" || return 1
  fi
  local -a list
  read -ra list <<< "$ranks"
  runs_left=${#list[@]}
  : > "$out/summary.txt"
  for np in "${list[@]}"; do
    rpn=0
    if [[ "$np" -ge 4 ]]; then rpn=$((np / 2)); fi  # two emulated nodes
    left=$((limit - ($(date +%s) - start)))
    budget=$((left / runs_left))
    runs_left=$((runs_left - 1))
    if [[ "$budget" -lt 30 ]]; then
      echo "np=$np: not run, the time limit ($limit s) is spent" | tee -a "$out/summary.txt"
      status=1
      continue
    fi
    name="np$np"
    t0=$(date +%s)
    run_selftest "$np" "$rpn" "$budget" "$plugin" "$name"
    rc=$?
    if [[ "$np" == "${list[0]}" && "$device" == cuda ]] && grep -q '^FAIL plugin.load' "$out/runs/$name.log"; then
      echo "gpu-run.sh: the kit's CUDA plugin does not start here; rebuilding it with this machine's nvcc"
      if plugin="$(rebuild_cuda_plugin)"; then
        run_selftest "$np" "$rpn" "$budget" "$plugin" "$name"
        rc=$?
      fi
    fi
    summary="$(grep '^summary:' "$out/runs/$name.log" | tail -1)"
    mpi_lib="$(sed -n 's/^# MPI: [^(]*(\([^)]*\)).*/\1/p' "$out/runs/$name.log" | head -1)"
    if [[ "$mpi_lib" != "$kit/"* && "$rc" == 0 ]]; then rc=1; fi  # the MPI must be the kit's
    echo "np=$np$([[ $rpn -gt 0 ]] && echo " (2 emulated nodes of $rpn)"): ${summary:-no summary}, exit $rc, $(($(date +%s) - t0)) s, MPI ${mpi_lib:-?}" |
      tee -a "$out/summary.txt"
    [[ "$rc" == 0 ]] || status=1
  done
  merge_reports
  echo "gpu-run.sh: $(($(date +%s) - start)) s; report in $out"
  return "$status"
}

# np rpn seconds plugin name: one self-test run; its output in runs/NAME.log.
run_selftest() {
  local np="$1" rpn="$2" seconds="$3" plugin="$4" name="$5" env=()
  [[ "$rpn" -gt 0 ]] && env=(-x "NBRCOLL_RANKS_PER_NODE=$rpn")
  echo "gpu-run.sh: $np ranks$([[ $rpn -gt 0 ]] && echo ", NBRCOLL_RANKS_PER_NODE=$rpn"), at most $seconds s"
  timeout -k 10 "$seconds" "$loader" --library-path "$libpath" "$kit/bin/orterun" -np "$np" "${env[@]}" \
    "$loader" --library-path "$libpath" "$kit/bin/nbrcoll-selftest" --device "$device" --plugin "$plugin" \
    --report "$out/runs/$name" "${quick[@]}" 2>&1 | tee "$out/runs/$name.log"
  return "${PIPESTATUS[0]}"
}

# The CUDA plugin built with this machine's nvcc into OUT (path on stdout).
rebuild_cuda_plugin() {
  local nvcc cuda_lib dst="$out/runs/plugin"
  nvcc="$(command -v nvcc || true)"
  [[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
  if [[ -z "$nvcc" ]]; then
    echo "gpu-run.sh: no nvcc here to rebuild the CUDA plugin" >&2
    return 1
  fi
  cuda_lib="$(cd "$(dirname "$nvcc")/../lib64" && pwd -P)"
  mkdir -p "$dst"
  local arch
  for arch in native sm_90; do
    if "$nvcc" -std=c++17 -O3 -DNBRCOLL_GPU_CUDA -arch="$arch" -I"$kit/src" \
      -Xcompiler -fPIC,-fvisibility=hidden -shared --cudart shared -o "$dst/libnbrcoll-cuda.so" \
      "$kit/src/transport/device/gpu/cuda_backend.cu" -lcuda -Xlinker "--version-script=$kit/src/transport/device/gpu/exports.map" \
      -Xlinker "-rpath=$cuda_lib" -Xcompiler -static-libstdc++,-static-libgcc >&2; then
      echo "$dst/libnbrcoll-cuda.so"
      return 0
    fi
  done
  echo "gpu-run.sh: the CUDA plugin could not be rebuilt" >&2
  return 1
}

machine_facts() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), host $(hostname), $(uname -srm)"
  # shellcheck disable=SC1091  # the machine's own file
  [[ -r /etc/os-release ]] && echo "os: $(. /etc/os-release && echo "${PRETTY_NAME:-?}")"
  echo "glibc of the machine: $(getconf GNU_LIBC_VERSION 2> /dev/null || echo '?') (the kit brings its own)"
  echo "cpus: $(nproc 2> /dev/null || echo '?')"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    nvidia-smi topo -m 2>&1 | sed 's/^/topo: /'
  fi
  command -v nvcc > /dev/null && echo "nvcc: $(nvcc --version | tail -1)"
  echo "driver folder on the kit's library path: ${libpath#"$kit/lib"}"
  echo
  echo "--- nbrcoll-info (the kit's) ---"
  kit_run "$kit/bin/nbrcoll-info"
  echo
  echo "--- MANIFEST.txt (the kit's, first lines) ---"
  head -9 "$kit/MANIFEST.txt"
}

# The runs' files into report.md, selftest.csv, bench.csv, and runs.tar.gz.
merge_reports() {
  local f first=1 bench_first=1 np
  {
    echo "# nbrcoll GPU self-test, $(date -u '+%Y-%m-%d'), $(hostname)"
    echo
    echo '```'
    cat "$out/summary.txt"
    grep -E '^(gpu|os|nvcc):' "$out/kit.txt"
    echo '```'
    for f in "$out"/runs/np*.md; do
      [[ -e "$f" ]] || continue
      np="$(basename "$f" .md)"
      echo
      echo "## ${np#np} ranks"
      echo
      cat "$f"
    done
  } > "$out/report.md"
  : > "$out/selftest.csv"
  : > "$out/bench.csv"
  for f in "$out"/runs/np*.csv; do
    [[ -e "$f" && "$f" != *-bench.csv ]] || continue
    if [[ "$first" == 1 ]]; then head -1 "$f" >> "$out/selftest.csv"; first=0; fi
    tail -n +2 "$f" >> "$out/selftest.csv"
  done
  for f in "$out"/runs/np*-bench.csv; do
    [[ -e "$f" ]] || continue
    if [[ "$bench_first" == 1 ]]; then head -1 "$f" >> "$out/bench.csv"; bench_first=0; fi
    tail -n +2 "$f" >> "$out/bench.csv"
  done
  tar -czf "$out/runs.tar.gz" -C "$out" runs && rm -rf "$out/runs"
}

main 2>&1 | tee "$out/log.txt"
exit "${PIPESTATUS[0]}"
