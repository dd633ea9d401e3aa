#!/usr/bin/env bash
# The main job, for now: parse, verify and run an example StableHLO program
# (a two-layer MLP exported by JAX) on kiln's reference interpreter, and show
# the module as kiln prints it. Installs and builds what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
echo "== kiln-opt examples/mlp.mlir (parsed, verified, printed)"
build/bin/kiln-opt examples/mlp.mlir
echo "== kiln run examples/mlp.mlir"
build/bin/kiln run examples/mlp.mlir \
  --input-literal 'dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.0, 2.0]]> : tensor<2x4xf32>' --print
echo "(jax.jit gives [[0.00478218 0.80810803 0.18710981] [0.0252761 0.56186366 0.41286027]])"
