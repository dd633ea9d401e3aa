#!/usr/bin/env bash
# The whole test suite: unit tests (gtest via ctest), lit + FileCheck tests,
# the conformance corpus through `kiln test` on the interpreter and the cpu
# back end (and capped at AVX2 on AVX-512 hosts), the Python tests, and a quick benchmark run (a smoke test: the
# harness keeps working; nothing is timed against a threshold).
# Installs what it needs first (scripts/setup.sh), then builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export KILN_BUILD_DIR=${KILN_BUILD_DIR:-$PWD/build}

scripts/setup.sh
scripts/build.sh

failed=()
step() {
  local name=$1; shift
  echo "==> $name"
  local start=$SECONDS
  if "$@"; then echo "<== $name: ok ($((SECONDS - start))s)"; else echo "<== $name: FAILED"; failed+=("$name"); fi
}

jobs=$(nproc)
step "unit tests" ctest --test-dir "$KILN_BUILD_DIR" --output-on-failure -j "$jobs"
step "lit tests" lit -sv -j "$jobs" tests/lit
conformance_files=()
while IFS= read -r -d '' f; do conformance_files+=("$f"); done \
  < <(find tests/conformance tests/kiln_test -name '*.mlir' -print0 2>/dev/null | sort -z)
if ((${#conformance_files[@]})); then
  step "conformance (kiln test, interpreter)" \
    "$KILN_BUILD_DIR/bin/kiln" test --backend interpreter --quiet --jobs "$jobs" \
      --xfail tests/conformance/known_failures.txt "${conformance_files[@]}"
  step "conformance (kiln test, cpu)" \
    "$KILN_BUILD_DIR/bin/kiln" test --backend cpu --quiet --jobs "$jobs" \
      --xfail tests/conformance/known_failures.txt --xfail tests/conformance/known_failures_cpu.txt \
      "${conformance_files[@]}"
  # On an AVX-512 host, the code AVX2-only hosts get (--cpu_max_isa,
  # docs/cpu_backend.md) runs the corpus too.
  if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    step "conformance (kiln test, cpu capped at AVX2)" \
      env KILN_FLAGS="${KILN_FLAGS:-} --cpu_max_isa=avx2" "$KILN_BUILD_DIR/bin/kiln" test --backend cpu --quiet \
        --jobs "$jobs" --xfail tests/conformance/known_failures.txt --xfail tests/conformance/known_failures_cpu.txt \
        "${conformance_files[@]}"
  fi
fi
# The Python package as built into the build tree (extension + python/kiln/*.py).
export KILN_PYTHONPATH="$KILN_BUILD_DIR/python"
step "python tests" python3 -m pytest -q tests/python
# ASan+UBSan and TSan builds of their own (build-asan/, build-tsan/; ccache makes
# them incremental): the LLVM-free unit tests under ASan+UBSan, the thread pool
# and collectives tests under TSan (docs/testing.md, "Sanitizers", for what it
# runs and costs). KILN_SKIP_SANITIZERS=1 skips it.
if [[ ${KILN_SKIP_SANITIZERS:-0} != 1 ]]; then
  step "sanitizers (scripts/sanitize.sh --ci)" scripts/sanitize.sh --ci
fi
# The libFuzzer harnesses (text, bytecode, verifier) replay their regression
# inputs and fuzz 30 s each: about 3 minutes from cold (build-fuzz/ is clang's
# own instrumented build). KILN_SKIP_FUZZ=1 skips it.
if [[ ${KILN_SKIP_FUZZ:-0} != 1 ]]; then
  step "fuzzing (scripts/fuzz.sh --ci)" scripts/fuzz.sh --ci
fi
# Every system but inductor (torch_compile), whose C++ compiles of every
# workload would add minutes on a fresh machine; kiln_torch keeps the
# PyTorch path in the smoke run.
step "benchmark smoke run (bench/run --quick, no timing checks)" \
  bench/run --quick --systems kiln,kiln_pjrt,xla,numpy,torch,kiln_torch,iree --json "$KILN_BUILD_DIR/bench-quick.json" --markdown "$KILN_BUILD_DIR/bench-quick.md"

if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all tests passed"
