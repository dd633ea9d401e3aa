#!/usr/bin/env bash
# Builds kiln with sanitizers and runs tests under them (docs/testing.md,
# "Sanitizers"):
#   --asan  AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/): the
#           unit tests (ctest), the lit tests and the conformance corpus on the
#           interpreter and the cpu back end
#   --tsan  ThreadSanitizer (build-tsan/): the concurrency tests (the thread
#           pool, the shared-memory collectives, one executable on 8 threads,
#           the compile caches, the runtime's buffers and events, the trace
#           recorder on several threads)
#
#   scripts/sanitize.sh [--asan] [--tsan] [--ci] [--jobs N]
#
# With neither --asan nor --tsan, both. --ci: what CI runs (scripts/test.sh),
# sized to its budget: under ASan+UBSan the unit tests of the libraries
# below LLVM; under TSan the thread pool's and the shared-memory
# collectives' tests. The build directories are kept between runs (ccache).
# Any sanitizer report fails the run (halt_on_error); the suppressions, each
# with its reason, are in tests/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits whatever folder the checkout is in (see scripts/build.sh).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}

run_asan=0 run_tsan=0 ci=0 jobs=$(nproc)
while (($#)); do
  case "$1" in
    --asan) run_asan=1; shift ;;
    --tsan) run_tsan=1; shift ;;
    --ci) ci=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((run_asan || run_tsan)) || { run_asan=1; run_tsan=1; }

failed=()
step() {
  local name=$1; shift
  echo "==> $name"
  local start=$SECONDS
  if "$@"; then echo "<== $name: ok ($((SECONDS - start))s)"; else echo "<== $name: FAILED ($((SECONDS - start))s)"; failed+=("$name"); fi
}

# Configures build directory $1 with sanitizers $2 (no Python extension: it
# would need the sanitizer runtime preloaded into python; no benchmarks).
# -O1 -g1 (line tables only; not RelWithDebInfo's -O2 -g): reports still name
# file and line, and an instrumented compile takes markedly less time and
# disk (the cold build of everything is what keeps --asan from finishing).
configure() {
  local dir=$1 sanitizers=$2
  if [[ ! -f $dir/build.ninja ]]; then
    mkdir -p "$dir"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE="$sanitizers" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DKILN_PYTHON=OFF -DKILN_BUILD_NATIVE_BENCH=OFF > "$dir/configure.log" 2>&1 ||
      { cat "$dir/configure.log" >&2; return 1; }
  fi
}

# The unit tests of the libraries below LLVM (kiln/support, ir, parse,
# collectives, device, interp, passes, .npy): what --ci runs.
front_end_tests=(flags_test source_file_test thread_pool_test trace_test float_formats_test sharding_test
  gspmd_sharding_test ir_test printer_test type_rules_test verifier_test op_facts_test parse_test
  bytecode_test pjrt_compile_options_test collectives_test device_buffer_test interp_core_test
  interp_ops_test npy_test buffer_assignment_test fusion_test pipeline_semantics_test
  import_gspmd_shardings_test)
ctest_regex() { local IFS='|'; echo "^($*)\$"; }

conformance_files=()
while IFS= read -r -d '' f; do conformance_files+=("$f"); done \
  < <(find tests/conformance tests/kiln_test -name '*.mlir' -print0 | sort -z)
conformance() {  # build-dir backend [extra xfail files]
  local dir=$1 backend=$2; shift 2
  local xfails=(--xfail tests/conformance/known_failures.txt)
  [[ $backend == cpu ]] && xfails+=(--xfail tests/conformance/known_failures_cpu.txt)
  "$dir/bin/kiln" test --backend "$backend" --quiet --jobs "$jobs" "${xfails[@]}" "${conformance_files[@]}"
}

if ((run_asan)); then
  dir=build-asan
  # allocator_may_return_null: an allocation too large for ASan's allocator
  # fails as it does without ASan (kiln reports `out of memory` at the op;
  # tests/lit/limits/memory.test), not as an ASan error.
  # intercept_tls_get_addr=0: GCC 12's libasan takes a dynamic TLS block
  # that glibc 2.36 mallocs at an address 16 bytes past a page boundary for
  # an old glibc's mmapped block, reads ASan's chunk header in front of it
  # as the block's start and size, and LeakSanitizer then dies at exit
  # scanning that range (google/sanitizers#1322; the plugin's thread_locals
  # in pjrt_c_api_test, about 1 run in 5; docs/testing.md). Without the
  # interceptor LSan still takes those blocks as roots (it scans every
  # chunk the dynamic linker allocates) and the static TLS as before.
  export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0:intercept_tls_get_addr=0:suppressions=$PWD/tests/sanitizers/asan.supp"
  export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/sanitizers/ubsan.supp"
  # `kiln test` stops a test after 60 s; tests run several times slower
  # under ASan on a loaded machine. Raised for lit (tests/lit/lit.cfg.py
  # passes it on) and the conformance runs; a test that hangs is still stopped.
  export KILN_TEST_TIMEOUT_S=${KILN_TEST_TIMEOUT_S:-600}
  step "asan: configure" configure "$dir" address,undefined
  step "asan: LSan with a dlopened library's thread_locals" tests/sanitizers/dtls_check.sh
  if ((ci)); then
    step "asan: build (unit tests below LLVM)" nice -n 5 ninja -C "$dir" "${front_end_tests[@]}"
    step "asan: unit tests of the libraries below LLVM" \
      ctest --test-dir "$dir" --output-on-failure -j "$jobs" -R "$(ctest_regex "${front_end_tests[@]}")"
  else
    # The tools first, and the tests that run them: they cover the cpu back
    # end end to end, and a run stopped before its end (the cold build of
    # everything takes long on a loaded machine) has their results already.
    step "asan: build (kiln, kiln-opt)" nice -n 5 ninja -C "$dir" kiln kiln-opt
    step "asan: lit tests" env KILN_BUILD_DIR="$PWD/$dir" lit -s -j "$jobs" tests/lit
    step "asan: conformance (interpreter)" conformance "$dir" interpreter
    step "asan: conformance (cpu)" conformance "$dir" cpu
    step "asan: build (unit tests)" nice -n 5 ninja -C "$dir"
    step "asan: unit tests" ctest --test-dir "$dir" --output-on-failure -j "$jobs" -E '^cuda_ptxas_corpus$'
  fi
fi

if ((run_tsan)); then
  dir=build-tsan
  # libgomp (oneDNN's OpenMP) is not instrumented: TSan cannot see its
  # barriers and reports the data its threads hand over. OMP_THREAD_LIMIT=1
  # keeps every OpenMP region on the thread that enters it, so all the
  # threads TSan watches are kiln's own (docs/testing.md).
  export OMP_THREAD_LIMIT=1
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitizers/tsan.supp"
  tsan_tests=(thread_pool_test collectives_test concurrency_test runtime_test cpu_executable_test trace_test)
  ((ci)) && tsan_tests=(thread_pool_test collectives_test)
  # The tests of those binaries that run things on several threads at once.
  tsan_filter='ThreadPool.*:SharedMemoryCommunicator.*:Concurrency.*:*/ConcurrencyByBackend.*:*/RuntimeConcurrency.*:Runtime.ExecuteSharded*'
  tsan_filter+=':*/RuntimeSpmd.*:Runtime.ChainedExecutionsNeedNoWaiting:Runtime.SmallProgramsRunInline*'
  tsan_filter+=':Runtime.DeletingAnArgumentAfterLaunch*:CpuExecutable.OneExecutableRunsOnEightThreadsAtOnce'
  tsan_filter+=':CpuExecutable.CompileCache*:CpuExecutable.ThreadedKernelsMatchSingleThreaded'
  tsan_filter+=':CpuExecutable.KernelsCompileInPartsOnThreads:CpuExecutable.ReplicasAndPartitions*'
  tsan_filter+=':CpuExecutable.AFailingReplicaStopsTheRun*:Trace.EachThreadIsATrackWithItsName'
  step "tsan: configure" configure "$dir" thread
  step "tsan: build" nice -n 5 ninja -C "$dir" "${tsan_tests[@]}"
  for t in "${tsan_tests[@]}"; do
    step "tsan: $t" "$dir/tests/$t" --gtest_filter="$tsan_filter" --gtest_brief=1
  done
fi

if ((${#failed[@]})); then
  echo "sanitize.sh FAILED: ${failed[*]}"
  exit 1
fi
echo "sanitize.sh: clean"
