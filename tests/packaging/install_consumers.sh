#!/usr/bin/env bash
# install_consumers.sh BUILD_DIR WORK_DIR CMAKE MPI_C_COMPILER PACKAGE -- LAUNCH...
# (PACKAGE: nbrcoll, or nbrcoll-mpich for an MPICH build: the pkg-config
# module, CMake package and library name.)
# Installs BUILD_DIR into WORK_DIR/prefix (cmake --install --prefix), moves
# the tree elsewhere (it must be relocatable), then builds the consumer
# program three ways against it and runs each on 2 ranks under LAUNCH (the
# MPI's launcher with its flags, up to and including the process count flag):
#   cmake:   find_package(PACKAGE), nbrcoll::nbrcoll  (MPI_Neighbor_allgather from libPACKAGE.so)
#   pkgconf: mpicc $(pkg-config --cflags --libs PACKAGE)
#   static:  libPACKAGE.a with pkg-config --static's other libraries
# Each must pass its check and log nbrcoll's plan (NBRCOLL_DEBUG=info).
set -euo pipefail
build=$1 work=$2 cmake=$3 mpicc=$4 pkg=$5
shift 6
launch=("$@")
src="$(cd "$(dirname "$0")" && pwd)/consumer"

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/prefix"
p="$work/prefix"
for tool in nbrcoll-topo "nbrcoll-info${pkg#nbrcoll}" nbrcoll-model "nbrcoll-calibrate${pkg#nbrcoll}"; do
  [[ -x "$p/bin/$tool" ]] || { echo "FAIL: $tool not installed in $p/bin"; exit 1; }
done
pcdir=$(dirname "$(find "$p" -name "$pkg.pc" | head -1)")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir"

run() { # name expected-origin exe
  local name=$1 want=$2 exe=$3
  echo "== $name: $exe"
  if ! NBRCOLL_DEBUG=info NBRCOLL_ALGO=leader "${launch[@]}" 2 "$exe" "$want" >"$work/$name.out" 2>&1; then
    cat "$work/$name.out"
    echo "FAIL: $name did not run cleanly"
    exit 1
  fi
  cat "$work/$name.out"
  [[ $(grep -c "ok; MPI_Neighbor_allgather from" "$work/$name.out") == 2 ]] || { echo "FAIL: $name: not 2 ranks ok"; exit 1; }
  grep -q "^\[nbrcoll 0\]" "$work/$name.out" || { echo "FAIL: $name: no nbrcoll log line"; exit 1; }
}

# 1. CMake, find_package.
"$cmake" -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$p" -DNBRCOLL_PACKAGE="$pkg" -DMPI_C_COMPILER="$mpicc" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake-configure.log"
"$cmake" --build "$work/cmake" >"$work/cmake-build.log"
run cmake "$libdir/lib$pkg.so" "$work/cmake/consumer_cmake"

# 2. pkg-config, shared.
pkg-config --exists "$pkg" || { echo "FAIL: pkg-config cannot find $pkg in $pcdir"; exit 1; }
# shellcheck disable=SC2046
"$mpicc" -o "$work/consumer_pkgconf" "$src/consumer.c" $(pkg-config --cflags --libs "$pkg") -Wl,-rpath,"$libdir" -ldl
run pkgconf "$libdir/lib$pkg.so" "$work/consumer_pkgconf"

# 3. pkg-config --static: the archive and Libs.private / Requires.private.
libs=$(pkg-config --static --libs "$pkg")
libs=${libs/-l$pkg/$libdir/lib$pkg.a}
# shellcheck disable=SC2086
"$mpicc" -o "$work/consumer_static" "$src/consumer.c" $(pkg-config --cflags "$pkg") $libs
run static '!libmpi' "$work/consumer_static"
echo "install_consumers: all three consumers ok"
