// A plain driver for the differential fuzzer (tests/fuzz/differential_fuzzer.cpp)
// where libFuzzer is not at hand, as in CI: program i of a run is the harness
// fed 256 bytes drawn from a PRNG seeded with (seed, i), so a finding replays
// with --seed S --first i --count 1.
//
//   kiln_differential_fuzz [--seed S] [--first I] [--count N] [--seconds T]
//
// --seconds stops after T seconds (then --count defaults to no limit).
//
// Each program's number goes to stderr before it runs, so an abort names it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  uint64_t seed = 1, first = 0, count = 0, seconds = 0;
  for (int i = 1; i < argc; ++i) {
    auto value = [&] { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 10) : 0ull; };
    if (!std::strcmp(argv[i], "--seed")) seed = value();
    else if (!std::strcmp(argv[i], "--first")) first = value();
    else if (!std::strcmp(argv[i], "--count")) count = value();
    else if (!std::strcmp(argv[i], "--seconds")) seconds = value();
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--first I] [--count N] [--seconds T]\n", argv[0]);
      return 2;
    }
  }
  if (!count) count = seconds ? UINT64_MAX - first : 100;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<uint8_t> bytes(256);
  uint64_t i = first;
  for (; i - first < count && (!seconds || std::chrono::steady_clock::now() < deadline); ++i) {
    std::seed_seq mix{uint32_t(seed), uint32_t(seed >> 32), uint32_t(i), uint32_t(i >> 32)};
    std::mt19937_64 rng(mix);
    for (uint8_t& b : bytes) b = uint8_t(rng());
    std::fprintf(stderr, "program %llu\n", (unsigned long long)i);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("differential fuzz: seed %llu, programs %llu..%llu: cpu and interpreter agree\n",
              (unsigned long long)seed, (unsigned long long)first, (unsigned long long)(i - 1));
  return 0;
}
