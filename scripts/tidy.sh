#!/usr/bin/env bash
# clang-tidy on the library (every translation unit of src/, algos/ and
# topo/ in BUILD's compile_commands.json: the unity batches where the build
# is a unity build, the sources otherwise), with the repository's
# .clang-tidy. Prints each finding once and fails if there is any. About
# half a minute on 2 cores; the build must be configured (its generated
# sources built: the Fortran entry points).
#   scripts/tidy.sh [BUILD]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db="$build/compile_commands.json"
[[ -f $db ]] || { echo "tidy.sh: no $db (configure the build first: scripts/build.sh)" >&2; exit 2; }
command -v clang-tidy > /dev/null || { echo "tidy.sh: no clang-tidy (apt-get install clang-tidy)" >&2; exit 2; }
root=$PWD
build_abs=$(realpath "$build")
# The library's units: its sources, or the unity batches of its targets.
mapfile -t units < <(/usr/bin/python3 - "$db" "$root" "$build_abs" <<'PY'
import json, re, sys
db, root, build = sys.argv[1:]
library = re.compile(r"^(%s|%s)/(src|algos|topo)/.*\.(cpp|cxx)$" % (re.escape(root), re.escape(build)))
for entry in json.load(open(db)):
    path = entry["file"]
    if library.match(path) and "/tests/" not in path:
        print(path)
PY
)
[[ ${#units[@]} -gt 0 ]] || { echo "tidy.sh: no library sources in $db" >&2; exit 2; }
out=$(printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet 2> /dev/null || true)
findings=$(grep -E '^[^ ].*: (warning|error): ' <<< "$out" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings"
  echo "tidy.sh: $(wc -l <<< "$findings") findings in ${#units[@]} units" >&2
  exit 1
fi
echo "tidy.sh: ${#units[@]} units, no findings"
