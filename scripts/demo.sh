#!/usr/bin/env bash
# The main job: train an MLP and a small CNN on scikit-learn's 8x8 digits with
# a training step run by kiln through its PJRT plugin (plain jax.jit on the kiln
# platform; JAX defines the models and the gradient),
# printing per-epoch loss and test accuracy and kiln's step time next to
# jax.jit's. Installs and builds what it needs first; extra arguments go to
# examples/train_digits.py (e.g. --quick, --model cnn, --kiln-jit).
set -euo pipefail
cd "$(dirname "$0")/.."
export KILN_BUILD_DIR=${KILN_BUILD_DIR:-$PWD/build}
scripts/setup.sh
scripts/build.sh
PYTHONPATH="$KILN_BUILD_DIR/python${PYTHONPATH:+:$PYTHONPATH}" python3 examples/train_digits.py "$@"
