#!/usr/bin/env bash
# Usage: spmd_differential.sh FILE ENTRY BACKEND INSTANCES [kiln run input flags...]
# Runs function ENTRY of FILE whole on the interpreter (the reference), then
# partitioned (kiln-opt --pipeline=spmd) with every instance on BACKEND, all
# instances getting the same inputs; every instance must print, line for line,
# what the whole program printed. Prints the whole program's results.
set -euo pipefail
file=$1 entry=$2 backend=$3 instances=$4
shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kiln run "$file" --entry "$entry" --backend=interpreter "$@" > "$dir/whole"
kiln-opt "$file" --pipeline=spmd > "$dir/parts.mlir"
kiln run "$dir/parts.mlir" --entry "$entry" --backend="$backend" --all-instances "$@" > "$dir/parts"
got=$(grep -c '^// instance' "$dir/parts" || true)
if [[ $got != "$instances" ]]; then
  echo "expected $instances instances, got $got" >&2
  exit 1
fi
grep -v '^// instance' "$dir/parts" > "$dir/stripped"
for ((i = 0; i < instances; ++i)); do cat "$dir/whole"; done > "$dir/want"
if ! diff "$dir/want" "$dir/stripped" >&2; then
  echo "$entry on $backend: an instance of the partitioned program differs from the whole program" >&2
  exit 1
fi
cat "$dir/whole"
