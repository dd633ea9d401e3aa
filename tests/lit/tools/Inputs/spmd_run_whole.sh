#!/usr/bin/env bash
# Usage: spmd_run_whole.sh FILE ENTRY BACKEND [kiln run input flags...]
# Runs function ENTRY of FILE whole on the interpreter (the reference), then
# with kiln run --spmd on BACKEND (partitioned over its mesh, each device
# given its blocks of the inputs, the whole results put together from the
# devices' blocks); the two must print the same. Prints the whole results.
set -euo pipefail
file=$1 entry=$2 backend=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kiln run "$file" --entry "$entry" --backend=interpreter "$@" > "$dir/whole"
kiln run "$file" --entry "$entry" --backend="$backend" --spmd "$@" > "$dir/parts"
if ! diff "$dir/whole" "$dir/parts" >&2; then
  echo "$entry on $backend: kiln run --spmd differs from the whole program" >&2
  exit 1
fi
cat "$dir/whole"
