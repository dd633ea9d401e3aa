#!/usr/bin/env bash
# Checks the LeakSanitizer options scripts/sanitize.sh uses against the
# crash that dynamic TLS caused (docs/testing.md, "Sanitizers"): a program
# dlopens a library whose thread_locals its threads use, as jaxlib and
# pjrt_c_api_test load kiln's plugin, and the threads are still running at
# exit, as the plugin's pool workers are.
#   1. With libasan's __tls_get_addr interceptor (the default), GCC 12's
#      libasan takes some of glibc 2.36's malloc'd TLS blocks for an old
#      glibc's mmapped ones and LSan's tracer dies at exit (reported, not a
#      failure: a fixed libasan makes it go away).
#   2. With ASAN_OPTIONS' intercept_tls_get_addr=0 it must never die, the
#      pointers held only in the thread_locals must not be reported, and a
#      leak injected in the main program must be.
#   tests/sanitizers/dtls_check.sh [RUNS]   (ASAN_OPTIONS from the caller, e.g. sanitize.sh)
set -euo pipefail
runs=${1:-10}
cxx=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/lib.cpp" <<'CPP'
thread_local char block[64] = {1};  // a small block: several land 16 bytes past a page
thread_local void* held = nullptr;
extern "C" void touch(void* p) { block[0]++; held = p; }
CPP
cat > "$work/main.cpp" <<'CPP'
#include <dlfcn.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
int main(int argc, char** argv) {
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) return std::printf("%s\n", dlerror()), 2;
  auto touch = reinterpret_cast<void (*)(void*)>(dlsym(library, "touch"));
  std::atomic<int> ready{0};
  for (int i = 0; i < 8; ++i)
    std::thread([&] {
      touch(std::malloc(32));  // held only by the thread_local
      ++ready;
      for (;;) pause();
    }).detach();
  while (ready < 8) usleep(100);
  if (std::getenv("INJECT_LEAK")) {
    void* volatile lost = std::malloc(77);
    lost = nullptr;
  }
  return 0;
}
CPP
"$cxx" -O1 -g -fsanitize=address -fPIC -shared "$work/lib.cpp" -o "$work/libtls.so"
"$cxx" -O1 -g -fsanitize=address "$work/main.cpp" -o "$work/main" -ldl -pthread
options=${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0}
run() {  # options [env...] -> the run's output
  env ASAN_OPTIONS="$1" "${@:2}" "$work/main" "$work/libtls.so" 2>&1 || true
}
died=0
for ((i = 0; i < runs; ++i)); do
  run "detect_leaks=1" | grep -q "LeakSanitizer has encountered a fatal error" && died=$((died + 1))
done
echo "dtls_check: with libasan's __tls_get_addr interceptor, LSan died in $died of $runs runs"
bad=0
for ((i = 0; i < runs; ++i)); do
  out=$(run "$options")
  if grep -q "LeakSanitizer has encountered a fatal error" <<<"$out"; then echo "dtls_check: LSan died under '$options'"; bad=1; fi
  if grep -q "leak of" <<<"$out"; then echo "dtls_check: a leak reported under '$options':"; echo "$out"; bad=1; fi
done
out=$(run "$options" INJECT_LEAK=1)
if ! grep -q "Direct leak of 77 byte" <<<"$out"; then
  echo "dtls_check: the injected leak was not reported under '$options':"; echo "$out"; bad=1
fi
((bad)) && exit 1
echo "dtls_check: under '$options' LSan completed $runs runs of $runs, reported nothing held by the thread_locals, and reported the injected leak"
