#!/usr/bin/env bash
# Packs PETSc KSP ex2 (built in BUILD by tests/petsc) and every library it
# needs that the GPU kit lacks into DIR, for run.sh on a machine with no
# PETSc: DIR/petsc_ksp_ex2 and DIR/lib/ (about 93 MiB; carry DIR.tar.xz,
# about 29 MiB, and unpack it there).
#   bash bench/results/h200-core-per-rank/pack-petsc.sh BUILD KIT DIR
set -euo pipefail
build=$1 kit=$2 dir=$3
ex2="$build/bin/petsc_ksp_ex2"
[[ -x $ex2 ]] || { echo "pack-petsc.sh: no $ex2 (scripts/install-deps.sh --petsc, then build petsc_ksp_ex2)" >&2; exit 2; }
rm -rf "$dir" && mkdir -p "$dir/lib"
cp "$ex2" "$dir/"
ldd "$ex2" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
  [[ -e "$kit/lib/$(basename "$lib")" ]] || cp -L "$lib" "$dir/lib/"
done
tar cJf "$dir.tar.xz" -C "$(dirname "$dir")" "$(basename "$dir")"
du -sh "$dir" "$dir.tar.xz"
