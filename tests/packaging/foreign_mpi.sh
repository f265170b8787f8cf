#!/usr/bin/env bash
# foreign_mpi.sh OTHER_MPICC LIBNBRCOLL WORK_DIR PATTERN
# A program built with the other MPI's compiler wrapper, run (no launcher
# needed) with this build's libnbrcoll preloaded: it must stop before main
# with exit status 1 and exactly one line on stderr matching PATTERN, not
# crash inside the MPI. The same program without the preload must run.
set -euo pipefail
cc=$1 lib=$2 work=$3 pattern=$4
mkdir -p "$work"
cat >"$work/foreign.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(void) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  printf("main reached\n");
  return 0;
}
C
"$cc" -o "$work/foreign" "$work/foreign.c"
"$work/foreign" | grep -q "main reached" || { echo "FAIL: the program does not run without the preload"; exit 1; }
set +e
LD_PRELOAD="$lib" "$work/foreign" >"$work/out" 2>"$work/err"
rc=$?
set -e
cat "$work/out" "$work/err"
[[ $rc == 1 ]] || { echo "FAIL: exit status $rc, expected 1"; exit 1; }
! grep -q "main reached" "$work/out" || { echo "FAIL: main ran"; exit 1; }
[[ $(wc -l <"$work/err") == 1 ]] || { echo "FAIL: not exactly one line on stderr"; exit 1; }
grep -Eq "$pattern" "$work/err" || { echo "FAIL: stderr does not match '$pattern'"; exit 1; }
echo "foreign_mpi: refused in one line"
