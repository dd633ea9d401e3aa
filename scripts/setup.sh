#!/usr/bin/env bash
# Installs everything kiln needs on a fresh Debian 12 machine. Idempotent and
# quick when all is present: it only calls apt/pip for what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(cmake ninja-build ccache g++ llvm-19-dev llvm-19-tools libdnnl-dev
              libgtest-dev libbenchmark-dev zlib1g-dev libzstd-dev graphviz libgloo-dev
              clang libclang-rt-dev)  # clang + libFuzzer: scripts/fuzz.sh
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing apt packages: ${missing[*]}"
  sudo_cmd=""; [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

python3 - <<'PY' || { echo "setup: installing Python packages"; python3 -m pip install -q -r requirements.txt; }
import importlib, sys
mods = ["numpy", "ml_dtypes", "lit", "pytest", "jax", "jaxlib", "flatbuffers", "nanobind", "scikit_build_core", "sklearn", "matplotlib", "torch",
        "expecttest"]
sys.exit(0 if all(importlib.util.find_spec(m) for m in mods) else 1)
PY
echo "setup: ok"
