#!/usr/bin/env bash
# The cuda back end's check on a machine with an NVIDIA GPU, in two halves
# (docs/gpu_backend.md, "Checking on a GPU"):
#
#   scripts/gpu_check.sh --bundle   here, where kiln builds: builds kiln and
#       the GPU tests, strips them and packs them with the shared libraries
#       they load (LLVM, oneDNN, ...) and libdevice (the CUDA toolkit's
#       device math library) into .gpu_bundle/kiln-gpu.tar.xz, with the
#       interpreter's verdicts on the conformance corpus; .gpu_bundle/ is
#       git-ignored (.git/info/exclude) so the device tool can carry it.
#       KILN_BUNDLE_XZ_LEVEL (default -9) trades its size for packing time.
#   scripts/gpu_check.sh            on the GPU machine (which has the CUDA
#       driver and Python with NumPy but no LLVM or oneDNN): unpacks the
#       bundle, finds cuBLASLt (the toolkit's, or the nvidia-cublas-cu12
#       wheel's that jax-cuda12-plugin brings; too large to carry), and runs
#       the GPU unit tests, the conformance corpus on cuda
#       (compared test by test with the interpreter's verdicts) and a few JAX
#       models on cuda against the interpreter; prints a summary and writes
#       it, with the full logs, to $OUT (or /tmp/kiln-gpu-check).
#
# Finishes within about 8 minutes on an H100 (each part has its own limit).
set -uo pipefail
cd "$(dirname "$0")/.."
bundle_dir=.gpu_bundle
bundle=$bundle_dir/kiln-gpu.tar.xz
# gpu_runtime_test and gpu_driver_test need no GPU (CI runs them); the
# bundle keeps to what only a GPU can check, for the device tool's 64 MiB.
binaries=(build/bin/kiln build/tests/gpu_device_test)

if [[ ${1:-} == --bundle ]]; then
  set -e
  nice -n 5 scripts/build.sh
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qxF "/$bundle_dir/" "$exclude" 2>/dev/null || echo "/$bundle_dir/" >>"$exclude"
  staging=$(mktemp -d)
  trap 'rm -rf "$staging"' EXIT
  mkdir -p "$staging/bin" "$staging/lib" "$bundle_dir"
  cp "${binaries[@]}" "$staging/bin/"
  strip "$staging"/bin/*
  # Every library they load except the C runtime's own (glibc, libstdc++,
  # libgcc_s: the GPU machine's are newer and compatible).
  for b in "${binaries[@]}"; do ldd "$b"; done | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+)\.so' |
    while read -r lib; do cp -L "$lib" "$staging/lib/"; done
  strip --strip-unneeded "$staging"/lib/* 2>/dev/null || true
  # The libdevice these kernels were checked with (kiln/backends/gpu/libdevice.h).
  libdevice=${KILN_LIBDEVICE:-${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc}
  cp "$libdevice" "$staging/libdevice.10.bc"
  echo "gpu_check: the interpreter's verdicts on the conformance corpus"
  build/bin/kiln test --backend interpreter --jobs "$(nproc)" tests/conformance >"$staging/conformance_interpreter.txt" || true
  git rev-parse HEAD >"$staging/commit.txt"
  echo "gpu_check: compressing (xz ${KILN_BUNDLE_XZ_LEVEL:--9}; 10 to 30 minutes on the shared 2-core machine)"
  tar -C "$staging" -cf - . | xz "${KILN_BUNDLE_XZ_LEVEL:--9}" -T0 >"$bundle"
  size=$(stat -c %s "$bundle")
  tree=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s}')
  total=$(((size + tree) / 1048576))
  echo "gpu_check: $bundle: $((size / 1048576)) MiB, with the tracked tree $total MiB (the device tool takes 64 MiB at most)"
  ((total < 63)) || { echo "gpu_check: too large for the device tool"; exit 1; }
  exit 0
fi

out=${OUT:-/tmp/kiln-gpu-check}
mkdir -p "$out"
report=$out/gpu_check_report.txt
: >"$report"
say() { echo "$*" | tee -a "$report"; }
if [[ ! -f $bundle ]]; then
  say "gpu_check: no $bundle: run scripts/gpu_check.sh --bundle where kiln builds, and carry $bundle_dir"
  exit 2
fi
root=/tmp/kiln-gpu
rm -rf "$root" && mkdir -p "$root"
# Python's tarfile, not tar -J: the GPU machine may have no xz.
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' "$bundle" "$root" || exit 2
export LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KILN_LIBDEVICE=$root/libdevice.10.bc
# cuBLASLt (dots): the loader's, the toolkit's (kiln looks in
# $CUDA_HOME/lib64 and /usr/local/cuda/lib64 itself), else a pip wheel's.
cublaslt=$( (ldconfig -p 2>/dev/null | grep -o '/.*libcublasLt\.so\.1[0-9]*$'; \
  ls "${CUDA_HOME:-/usr/local/cuda}"/lib64/libcublasLt.so.1[0-9]* /usr/local/cuda/lib64/libcublasLt.so.1[0-9]* 2>/dev/null) | head -1)
if [[ -z $cublaslt ]]; then
  wheel=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)
  if [[ -n $wheel ]]; then
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$wheel
    cublaslt=$(ls "$wheel"/libcublasLt.so.* 2>/dev/null | head -1)
  fi
fi
# cuSOLVER (LAPACK's syevd and gesdd): the same places, else the wheels
# of nvidia-cusolver-cu12 and of the libraries it loads (cuSPARSE,
# nvJitLink, cuBLAS).
cusolver=$( (ldconfig -p 2>/dev/null | grep -o '/.*libcusolver\.so\.1[0-9]*$'; \
  ls "${CUDA_HOME:-/usr/local/cuda}"/lib64/libcusolver.so.1[0-9]* /usr/local/cuda/lib64/libcusolver.so.1[0-9]* 2>/dev/null) | head -1)
if [[ -z $cusolver ]]; then
  for package in cusolver cusparse nvjitlink cublas; do
    wheel=$(python3 -c "import nvidia.$package, os; print(os.path.join(list(nvidia.$package.__path__)[0], 'lib'))" 2>/dev/null)
    [[ -n $wheel && :$LD_LIBRARY_PATH: != *:$wheel:* ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$wheel
    [[ $package == cusolver && -n $wheel ]] && cusolver=$(ls "$wheel"/libcusolver.so.* 2>/dev/null | head -1)
  done
fi
say "== kiln gpu check: commit $(cat "$root/commit.txt"), $(date -u '+%Y-%m-%d %H:%M UTC')"
say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
say "cuBLASLt: ${cublaslt:-none found (every dot will fail: 'no cuBLASLt')}; cuSOLVER: ${cusolver:-none found (syevd and gesdd will fail: 'no cuSOLVER')}; libdevice: bundled"
missing=$(for b in "$root"/bin/*; do ldd "$b"; done | grep 'not found' | sort -u)
[[ -n $missing ]] && say "missing libraries: $missing"

failures=0
for t in gpu_device_test; do
  timeout 120 "$root/bin/$t" >"$out/$t.log" 2>&1
  rc=$?
  case $rc in
    0) verdict=passed ;;
    77) verdict="SKIPPED: $(tail -1 "$out/$t.log") (on a GPU machine, a failure)" ;;
    *) verdict="FAILED (exit $rc)" ;;
  esac
  say "$t: $verdict -- $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ')"
  ((rc != 0)) && failures=$((failures + 1)) && grep -E '^\[  FAILED  \]|Failure|error' "$out/$t.log" | head -20 | tee -a "$report"
done

# The corpus: every test in its own process (each makes its own CUDA context).
timeout 330 "$root/bin/kiln" test --backend cuda --jobs "$(nproc)" --timeout 60 tests/conformance \
  >"$out/conformance_cuda.txt" 2>&1
say "conformance on cuda: kiln test exited $?: $(tail -1 "$out/conformance_cuda.txt") (log: conformance_cuda.txt)"
timeout 150 python3 scripts/gpu_check.py --kiln "$root/bin/kiln" \
  --cuda "$out/conformance_cuda.txt" --interpreter "$root/conformance_interpreter.txt" --out "$out" |
  tee -a "$report"
((PIPESTATUS[0] != 0)) && failures=$((failures + 1))
say "== gpu check: $failures part(s) failed; report: $report"
exit $((failures != 0))
