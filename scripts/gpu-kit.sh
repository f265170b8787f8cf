#!/usr/bin/env bash
# Packs nbrcoll-selftest for a GPU machine that has no MPI and no package
# registry: one folder, under 64 MiB, that runs anywhere on x86-64 Linux from
# wherever it is copied, touching nothing of the system but the GPU driver.
#
#   scripts/gpu-kit.sh [--build-dir DIR] [--no-build] [--out DIR] [--max-mib N]
#
# It builds here (Release, the CUDA plugin where nvcc is: /usr/local/cuda or
# PATH) the self-test, libnbrcoll, nbrcoll-info, nbrcoll-bench, nbrcoll-stencil, the CUDA plugin and the fake
# device, fetches Debian's Open MPI runtime with `apt-get download` (the
# versions installed here, which the build used) and unpacks it, and copies
# into the kit every library those programs need, glibc and its loader
# included: the kit's programs run through the kit's own ld-linux-x86-64.so.2
# with the kit's lib/ as their only library path, so the machine's glibc
# version does not matter and no system MPI can be picked up. Open MPI and
# PMIx plugins whose libraries are not in the kit (InfiniBand, UCX,
# libfabric, PSM) are left out. Only the GPU driver (libcuda.so.1) comes from
# the machine. On the GPU machine: bash KIT/gpu-run.sh (see its header).
#
#   --build-dir DIR  the build tree (default build-gpu-kit; configured here when it
#                    has no CMakeCache.txt). An Open MPI build only.
#   --no-build       pack what DIR holds (the tests' use: build/ is built already)
#   --out DIR        the kit folder (default DIR/gpu-kit; emptied first)
#   --max-mib N      fail when the kit is larger (default 64)
# Environment: JOBS (default 2) parallel build jobs; KIT_DEBS a folder to keep
# the downloaded packages in (default DIR/gpu-kit-debs).
set -euo pipefail
cd "$(dirname "$0")/.."
src_root="$PWD"

build="build-gpu-kit"
out=""
max_mib=64
do_build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --max-mib) max_mib="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-kit.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
build="$(mkdir -p "$build" && cd "$build" && pwd)"
out="${out:-$build/gpu-kit}"
debs="${KIT_DEBS:-$build/gpu-kit-debs}"
say() { echo "gpu-kit.sh: $*"; }
die() { echo "gpu-kit.sh: $*" >&2; exit 1; }

for tool in apt-get dpkg-deb dpkg-query readelf strip python3; do
  command -v "$tool" > /dev/null || die "needs $tool (Debian's apt, dpkg, binutils and python3)"
done

# ---- 1. the build -----------------------------------------------------------
nvcc="$(command -v nvcc || true)"
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  [[ "$do_build" == 1 ]] || die "$build is not a configured build tree"
  cuda=(-DNBRCOLL_WITH_CUDA=OFF)
  if [[ -n "$nvcc" ]]; then
    # A100, H100/H200, B200, RTX 50xx; PTX of each for what comes after.
    cuda=(-DNBRCOLL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" "-DCMAKE_CUDA_ARCHITECTURES=80;90;100;120")
  fi
  cmake -S "$src_root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNBRCOLL_WITH_HIP=OFF "${cuda[@]}"
fi
if [[ "$do_build" == 1 ]]; then
  targets=(nbrcoll nbrcoll-selftest nbrcoll-info nbrcoll-bench fake_device)
  # (grep reads everything: with pipefail, an early exit would fail the pipe)
  cmake --build "$build" --target help | grep -w nbrcoll_cuda > /dev/null && targets+=(nbrcoll_cuda)
  cmake --build "$build" --target help | grep -w nbrcoll-stencil > /dev/null && targets+=(nbrcoll-stencil)
  cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"
fi
selftest="$build/bin/nbrcoll-selftest"
[[ -x "$selftest" ]] || die "$selftest is missing (a build with NBRCOLL_BUILD_BENCH=ON makes it)"
readelf -d "$selftest" | grep 'libmpi\.so\.40' > /dev/null || die "$build is not an Open MPI build (the kit carries Debian's Open MPI)"

# ---- 2. Debian's Open MPI runtime, unpacked ---------------------------------
packages=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
  libmunge2 libudev1 zlib1g libc6 libstdc++6 libgcc-s1)
mkdir -p "$debs"
specs=()
for p in "${packages[@]}"; do
  v="$(dpkg-query -W -f='${Version}' "$p" 2> /dev/null || true)"
  specs+=("$p${v:+=$v}")  # the installed version: the one the build linked against
done
fetch=()
for s in "${specs[@]}"; do
  name="${s%%=*}"
  version="${s#*=}"
  [[ "$version" == "$s" ]] && version=""
  file_version="${version//:/%3a}"
  compgen -G "$debs/${name}_${file_version:-*}_*.deb" > /dev/null || fetch+=("$s")
done
if [[ ${#fetch[@]} -gt 0 ]]; then
  say "apt-get download ${fetch[*]}"
  (cd "$debs" && apt-get download "${fetch[@]}") || die "apt-get download failed (no package lists? run apt-get update)"
fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
mkdir -p "$root"
for s in "${specs[@]}"; do
  name="${s%%=*}"
  version="${s#*=}"
  [[ "$version" == "$s" ]] && version=""
  file_version="${version//:/%3a}"
  deb="$(compgen -G "$debs/${name}_${file_version:-*}_*.deb" | sort | tail -1)"
  dpkg-deb -x "$deb" "$root"
done

# ---- 3. the kit: programs, then every library they need ----------------------
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/openmpi3" "$out/lib/pmix" "$out/share" "$out/etc" "$out/src/transport/device/gpu"
kit_lib="$out/lib"
# Where the unpacked packages keep their libraries, and the CUDA runtime the
# plugin was linked with (its RUNPATH: the toolkit's lib64).
search=("$root/lib/x86_64-linux-gnu" "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib/x86_64-linux-gnu/openmpi/lib"
  "$root/usr/lib/x86_64-linux-gnu/pmix2/lib")
cuda_plugin="$build/lib/libnbrcoll-cuda.so"
if [[ -f "$cuda_plugin" ]]; then
  while IFS= read -r d; do search+=("$d"); done < <(readelf -d "$cuda_plugin" |
    sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' | tr ':' '\n')
fi
# The GPU driver is the machine's own (it must match its kernel module).
system_libs=" libcuda.so.1 "

# A file in the unpacked tree, its links followed inside the tree (absolute
# links there point into the packages, not at this machine's /).
in_root() {
  local f="$1" t
  while [[ -L "$f" ]]; do
    t="$(readlink "$f")"
    if [[ "$t" == /* ]]; then f="$root$t"; else f="$(dirname "$f")/$t"; fi
  done
  [[ -e "$f" ]] && echo "$f"
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
declare -A found=()  # library name -> its file, or "-" when nowhere
locate() {
  local name="$1" d f
  if [[ -z "${found[$name]+x}" ]]; then
    found[$name]="-"
    for d in "${search[@]}"; do
      if [[ "$d" == "$root"* ]]; then f="$(in_root "$d/$name" || true)"; else f="$(readlink -f "$d/$name" 2> /dev/null || true)"; fi
      if [[ -n "$f" && -f "$f" ]]; then found[$name]="$f"; break; fi
    done
  fi
  echo "${found[$name]}"
}
# Prints the libraries `file` needs that can be found nowhere (none: all fine).
declare -A ok=()
missing_of() {
  local file="$1" n f
  for n in $(needed "$file"); do
    [[ "$system_libs" == *" $n "* || -n "${ok[$n]+x}" || -e "$kit_lib/$n" ]] && continue
    f="$(locate "$n")"
    if [[ "$f" == "-" ]]; then echo "$n"; continue; fi
    ok[$n]=1
    missing_of "$f"
  done
}
# Copies the libraries `file` needs into the kit, and theirs.
copy_needs() {
  local file="$1" n f
  for n in $(needed "$file"); do
    [[ "$system_libs" == *" $n "* || -e "$kit_lib/$n" ]] && continue
    f="$(locate "$n")"
    [[ "$f" != "-" ]] || die "$file needs $n, which is in no package of the kit"
    cp "$f" "$kit_lib/$n"
    chmod u+w "$kit_lib/$n"
    copy_needs "$kit_lib/$n"
  done
}

# Our programs (stripped: the kit has no use for debug information).
cp "$selftest" "$build/bin/nbrcoll-info" "$out/bin/"
# The benchmark too, for timings on the GPU machine's own cores (gpu-run.sh --mpirun).
for program in nbrcoll-bench nbrcoll-stencil; do
  [[ -x "$build/bin/$program" ]] && cp "$build/bin/$program" "$out/bin/"
done
for lib in "$build"/lib/libnbrcoll.so.*.*.* "$cuda_plugin" "$build/lib/fake_gpu/libnbrcoll-fake-device.so"; do
  [[ -f "$lib" ]] && cp "$lib" "$kit_lib/"
done
soname="$(readelf -d "$kit_lib"/libnbrcoll.so.*.*.* | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
ln -s "$(basename "$kit_lib"/libnbrcoll.so.*.*.*)" "$kit_lib/$soname"
strip --strip-unneeded "$out"/bin/* "$kit_lib"/libnbrcoll*.so*
# Open MPI's launcher (mpirun is orterun) and the loader every program runs through.
cp "$(in_root "$root/usr/bin/orterun")" "$out/bin/orterun"
ln -s orterun "$out/bin/mpirun"
cp "$(in_root "$root/lib64/ld-linux-x86-64.so.2")" "$kit_lib/ld-linux-x86-64.so.2"
for f in "$out"/bin/* "$kit_lib"/*.so*; do
  [[ -L "$f" ]] || copy_needs "$f"
done
# Plugins of Open MPI and PMIx whose libraries the kit has (or can have).
left_out=()
for dir in "openmpi/lib/openmpi3:openmpi3" "pmix2/lib/pmix:pmix"; do
  for c in "$root/usr/lib/x86_64-linux-gnu/${dir%%:*}"/*.so; do
    miss="$(missing_of "$c" | sort -u | tr '\n' ' ')"
    if [[ -n "$miss" ]]; then
      left_out+=("$(basename "$c" .so) (${miss% })")
      continue
    fi
    cp "$c" "$kit_lib/${dir##*:}/"
    copy_needs "$kit_lib/${dir##*:}/$(basename "$c")"
  done
done
# Every search path of the kit's files points into the kit: they were linked
# with this machine's (the MPI's folder, the CUDA toolkit, and an empty entry:
# the current folder).
# shellcheck disable=SC2016  # $ORIGIN is for the loader, not the shell
{
  python3 scripts/elf_runpath.py '$ORIGIN/../lib' "$out"/bin/nbrcoll-* "$out/bin/orterun"
  find "$kit_lib" -maxdepth 1 -type f -name '*.so*' -exec python3 scripts/elf_runpath.py '$ORIGIN' {} +
  python3 scripts/elf_runpath.py '$ORIGIN/..' "$kit_lib"/openmpi3/*.so "$kit_lib"/pmix/*.so
}
# Help texts, and configuration the kit's launcher reads instead of /etc's.
cp -r "$root/usr/share/openmpi" "$out/share/openmpi"
cp -r "$root/usr/lib/x86_64-linux-gnu/pmix2/share/pmix" "$out/share/pmix"
cat > "$out/etc/openmpi-mca-params.conf" << 'EOF'
# The kit's Open MPI settings (gpu-run.sh points OPAL_SYSCONFDIR here): one
# node, shared memory between ranks, no process binding (ranks may share cores).
btl = self,vader
pml = ob1
plm = isolated
btl_vader_single_copy_mechanism = none
rmaps_base_oversubscribe = 1
hwloc_base_binding_policy = none
btl_base_warn_component_unused = 0
EOF
echo "# the kit's default hostfile: empty (this node)" > "$out/etc/openmpi-default-hostfile"
echo "# the kit's PMIx settings: none" > "$out/etc/pmix-mca-params.conf"
# The CUDA plugin's sources, for a rebuild with the machine's nvcc
# (gpu-run.sh does it when the kit's plugin cannot start there).
cp src/transport/device/backend_abi.h "$out/src/transport/device/"
cp src/transport/device/gpu/cuda_backend.cu src/transport/device/gpu/backend_impl.h \
  src/transport/device/gpu/copy_kernel.h src/transport/device/gpu/gpu_runtime.h \
  src/transport/device/gpu/exports.map "$out/src/transport/device/gpu/"
cp scripts/gpu-run.sh "$out/gpu-run.sh"
chmod +x "$out/gpu-run.sh"

# ---- 4. what is inside, and the size ---------------------------------------
glibc_need="$(for f in "$out"/bin/* "$kit_lib"/*.so* "$kit_lib"/openmpi3/*.so; do
  [[ -L "$f" ]] || readelf -V "$f" 2> /dev/null; done | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
{
  echo "nbrcoll GPU kit, made $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  echo "nbrcoll: $(git -C "$src_root" describe --always --dirty 2> /dev/null || echo '?'), build $build"
  echo "run: bash gpu-run.sh [--device cuda|fake] [OUT]   (see the header of gpu-run.sh)"
  echo "CUDA plugin: $([[ -f "$cuda_plugin" ]] && "${nvcc:-nvcc}" --version 2> /dev/null | tail -1 || echo 'none (no nvcc here)')"
  echo "glibc: the kit's own (libc6 $(dpkg-query -W -f='${Version}' libc6)), loader lib/ld-linux-x86-64.so.2; its programs need up to $glibc_need"
  echo "from the machine: the GPU driver (libcuda.so.1) only"
  echo "packages: ${specs[*]}"
  echo "left out (their libraries are not in the kit): ${left_out[*]:-none}"
  echo "files:"
  (cd "$out" && find . -type f -printf '%s %p\n' | sort -k2)
} > "$out/MANIFEST.txt"
# The limit holds for the kit and the tracked tree together: both travel to
# a GPU machine that gets a copy of the repository (64 MiB in all).
bytes="$(du -sb "$out" | cut -f1)"
tree="$(cd "$src_root" && git ls-files -z 2> /dev/null | xargs -0 -r stat -c %s 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')"
say "kit $out: $((bytes / 1024 / 1024)) MiB ($bytes bytes), $(find "$out" -type f | wc -l) files; with the tracked tree ($((tree / 1024)) KiB): $(((bytes + tree) / 1024 / 1024)) MiB of $max_mib"
if [[ $((bytes + tree)) -gt $((max_mib * 1024 * 1024)) ]]; then
  die "the kit and the tree are larger than $max_mib MiB"
fi
