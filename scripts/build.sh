#!/usr/bin/env bash
# Configures and builds kiln into build/ (Ninja, ccache). Tools land in build/bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KILN_BUILD_DIR:-build}
# ccache hits whatever folder the checkout is in (CI clones afresh elsewhere):
# paths below the checkout are hashed relative to it.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${KILN_BUILD_TYPE:-RelWithDebInfo}
fi
ninja -C "$build_dir"
