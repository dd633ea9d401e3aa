#!/usr/bin/env bash
# Fuzzes kiln's front end with libFuzzer (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer):
#   text      StableHLO text -> parser -> verifier -> printer -> parser again
#             (tests/fuzz/text_fuzzer.cpp)
#   bytecode  portable artifacts (MLIR bytecode with VHLO) -> reader -> verifier
#             (tests/fuzz/bytecode_fuzzer.cpp)
#   verifier  random valid programs broken by a few mutations -> verifier ->
#             printer -> parser (tests/fuzz/verifier_fuzzer.cpp)
#   differential  random valid programs -> cpu back end vs the interpreter
#             (tests/fuzz/differential_fuzzer.cpp); only when named: it needs
#             the LLVM build, so it runs build/bin/kiln_differential_fuzz
#             (ninja -C build) from a seed of the clock; with --libfuzzer,
#             build-fuzz/differential_fuzzer instead: the harness built by
#             clang with libFuzzer (its coverage guides the generator's
#             choices; kiln's libraries come from build/, uninstrumented)
#
#   scripts/fuzz.sh [--ci] [--time SECONDS] [--jobs N] [--libfuzzer] [HARNESS...]
#
# Builds build-fuzz/ (its own objects of kiln/support, kiln/ir and kiln/parse,
# instrumented; no CMake, no LLVM), seeds each harness's corpus from the
# repository's tests (lit and kiln test files, the bytecode fixtures), replays
# the regression inputs of tests/fuzz/regressions/HARNESS/ (every crash found
# so far), then fuzzes each harness for --time seconds (default 600; --ci: 30)
# on one core (libFuzzer's -fork or -jobs would take more).
# A crash leaves its input in build-fuzz/crashes/HARNESS/ and makes the script
# fail; add the input to tests/fuzz/regressions/HARNESS/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

time_per_harness=600
jobs=2
libfuzzer=0
harnesses=()
while (($#)); do
  case "$1" in
    --ci) time_per_harness=30; shift ;;
    --time) time_per_harness="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --libfuzzer) libfuzzer=1; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    text|bytecode|verifier|differential) harnesses+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#harnesses[@]})) || harnesses=(text bytecode verifier)

# The differential fuzzer: the PRNG driver, one campaign per job, each from
# its own seed (a finding prints the seed and program number that replay it).
if [[ " ${harnesses[*]} " == *" differential "* && $libfuzzer == 1 ]]; then
  # The harness compiled by clang for libFuzzer, linked with the libraries
  # kiln_differential_fuzz links (CMake's link line, from build/build.ninja).
  ninja -C build kiln_differential_fuzz
  mkdir -p build-fuzz/crashes/differential build-fuzz/corpus/differential
  libraries=$(awk '/^build bin\/kiln_differential_fuzz:/{f=1} f && /LINK_LIBRARIES/{sub(/^ *LINK_LIBRARIES = /, ""); print; exit}' build/build.ninja)
  (cd build && ${CXX:-clang++} -std=c++20 -O2 -g -I.. -fsanitize=fuzzer ../tests/fuzz/differential_fuzzer.cpp \
     ../tests/fuzz/random_program.cpp $libraries -o ../build-fuzz/differential_fuzzer)
  echo "== differential (libFuzzer): ${jobs} jobs for ${time_per_harness}s"
  # (In build-fuzz/: with -jobs, libFuzzer writes each job's log to ./fuzz-J.log.)
  rm -f build-fuzz/fuzz-*.log
  if ! (cd build-fuzz && ./differential_fuzzer -max_total_time="$time_per_harness" -jobs="$jobs" -workers="$jobs" \
      -max_len=256 -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix=crashes/differential/ corpus/differential > differential.log 2>&1); then
    echo "fuzz.sh: differential found a problem; input in build-fuzz/crashes/differential/, logs in build-fuzz/fuzz-*.log" >&2
    exit 1
  fi
  grep -h "stat::number_of_executed_units" build-fuzz/fuzz-*.log 2>/dev/null || true
  rest=()
  for h in "${harnesses[@]}"; do [[ $h == differential ]] || rest+=("$h"); done
  ((${#rest[@]})) || exit 0
  harnesses=("${rest[@]}")
fi
if [[ " ${harnesses[*]} " == *" differential "* ]]; then
  ninja -C build kiln_differential_fuzz
  seed=$(date +%s)
  mkdir -p build-fuzz
  echo "== differential: ${jobs} jobs for ${time_per_harness}s from seed $seed"
  pids=()
  for ((j = 0; j < jobs; ++j)); do
    build/bin/kiln_differential_fuzz --seed $((seed + j)) --seconds "$time_per_harness" \
      > "build-fuzz/differential.$j.log" 2>&1 &
    pids+=($!)
  done
  for ((j = 0; j < jobs; ++j)); do
    if ! wait "${pids[$j]}"; then
      echo "fuzz.sh: differential (seed $((seed + j))) found a problem; see build-fuzz/differential.$j.log" >&2
      exit 1
    fi
    tail -1 "build-fuzz/differential.$j.log"
  done
  rest=()
  for h in "${harnesses[@]}"; do [[ $h == differential ]] || rest+=("$h"); done
  ((${#rest[@]})) || exit 0
  harnesses=("${rest[@]}")
fi

CXX=${CXX:-clang++}
out=build-fuzz
flags=(-std=c++20 -O1 -g -I. -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined)
mkdir -p "$out/obj"

# Objects of the libraries under test, rebuilt when their source or any header is newer.
sources=(kiln/support/*.cpp kiln/ir/*.cpp kiln/ir/ops/*.cpp kiln/parse/*.cpp)
newest_header=$(find kiln -name '*.h' -newer "$out/.stamp" 2>/dev/null | head -1 || true)
[[ -f "$out/.stamp" ]] || newest_header=all
compile() {  # source -> object
  local src=$1 obj="$out/obj/$(echo "$1" | tr / _).o"
  if [[ -n "$newest_header" || ! -f "$obj" || "$src" -nt "$obj" ]]; then
    "$CXX" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
}
export -f compile
export CXX out newest_header
export FLAGS="${flags[*]}"
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -I{} bash -c 'flags=($FLAGS); compile {}'
touch "$out/.stamp"

# Seeds: every `// -----` chunk of the repository's .mlir tests; the bytecode
# fixtures' bytes without their magic (the harness puts it back).
seed_corpora() {
  mkdir -p "$out/corpus/text" "$out/corpus/bytecode"
  python3 - "$out" <<'PY'
import hashlib, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
for path in list(pathlib.Path("tests").rglob("*.mlir")):
    for chunk in path.read_text(errors="replace").split("// -----"):
        digest = hashlib.sha1(chunk.encode()).hexdigest()[:16]
        (out / "corpus/text" / digest).write_text(chunk)
inc = pathlib.Path("tests/unit/bytecode_fixtures.inc").read_text()
for name, body in re.findall(r'\{"(\w+)", \{([0-9a-fx, ]+)\}', inc):
    data = bytes(int(b, 16) for b in body.split(", ") if b)
    (out / "corpus/bytecode" / name).write_bytes(data[4:])
PY
}
seed_corpora

status=0
for h in "${harnesses[@]}"; do
  bin="$out/${h}_fuzzer"
  harness_sources=("tests/fuzz/${h}_fuzzer.cpp")
  max_len=65536  # seeds are whole test files
  # The verifier harness reads its choices from the bytes: a program and its
  # mutations take a few hundred.
  [[ $h == verifier ]] && { harness_sources+=(tests/fuzz/random_program.cpp); max_len=2048; }
  "$CXX" "${flags[@]}" -fsanitize=fuzzer "${harness_sources[@]}" "$out"/obj/*.o -o "$bin" -lpthread
  mkdir -p "$out/crashes/$h" "tests/fuzz/regressions/$h"
  if compgen -G "tests/fuzz/regressions/$h/*" > /dev/null; then
    echo "== $h: replaying tests/fuzz/regressions/$h"
    if ! "$bin" -runs=0 tests/fuzz/regressions/$h/* > "$out/$h.replay.log" 2>&1; then
      status=1
      echo "fuzz.sh: a regression input of $h fails again; see $out/$h.replay.log" >&2
    fi
  fi
  echo "== $h: fuzzing for ${time_per_harness}s"
  mkdir -p "$out/corpus/$h"
  if ! "$bin" -max_total_time="$time_per_harness" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$out/crashes/$h/" -print_final_stats=1 "$out/corpus/$h" 2> "$out/$h.log"; then
    status=1
    echo "fuzz.sh: $h found a problem; input in $out/crashes/$h/, log in $out/$h.log" >&2
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$out/$h.log" | head -5 >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$h.log" || true
done
exit $status
