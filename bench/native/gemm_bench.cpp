// GEMM through kiln against oneDNN called directly, in the same process and
// run: issue 5's "f32 and bf16 GEMM 256 to 2048 against oneDNN called
// directly: goal at least 90%". kiln compiles a stablehlo.dot_general program
// with the cpu back end; the peer is a oneDNN matmul primitive on plain
// row-major buffers, built the way a user of oneDNN would. The two are timed
// alternately (A B A B ...) and each reports its median; the figure that
// matters is the ratio.
//
//   build/bin/kiln_gemm_bench [--runs N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/parse/parser.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string program(int n, const char* element) {
  std::string t = "tensor<" + std::to_string(n) + "x" + std::to_string(n) + "x" + element + ">";
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t + " {\n  %0 = stablehlo.dot_general %a, %b, " +
         "contracting_dims = [1] x [0] : (" + t + ", " + t + ") -> " + t + "\n  return %0 : " + t + "\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 15;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: kiln_gemm_bench [--runs N]\n"
                  "Times square GEMMs (256..2048, f32 and bf16) compiled by kiln against a oneDNN matmul\n"
                  "primitive called directly, alternately in one run, and prints medians and the ratio.\n");
      return 0;
    }
    if (arg == "--runs" && i + 1 < argc) runs = std::max(3, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "kiln_gemm_bench: unknown argument '%s' (see --help)\n", arg.c_str());
      return 2;
    }
  }
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::printf("%-6s %5s %12s %12s %10s %10s %8s\n", "type", "n", "kiln ms", "oneDNN ms", "kiln GF/s", "oneDNN GF/s",
              "ratio");
  for (const char* element : {"f32", "bf16"}) {
    for (int n : {256, 512, 1024, 2048}) {
      auto module = kiln::parseModule(program(n, element), "gemm.mlir");
      if (!module.isOk()) {
        std::fprintf(stderr, "%s\n", module.status().message().c_str());
        return 1;
      }
      auto executable = kiln::cpu::compileForCpu(**module, "main");
      if (!executable.isOk()) {
        std::fprintf(stderr, "%s\n", executable.status().message().c_str());
        return 1;
      }
      kiln::Type type = kiln::func::body(*(*module)->lookupFunction("main")).argument(0)->type();
      kiln::interp::Tensor a(type), b(type);
      for (int64_t i = 0; i < a.numElements(); ++i) {
        a.setFloat(i, double((i * 7919) % 1000) / 1000.0 - 0.5);
        b.setFloat(i, double((i * 104729) % 1000) / 1000.0 - 0.5);
      }

      auto dt = std::string(element) == "f32" ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
      dnnl::memory::desc md({n, n}, dt, dnnl::memory::format_tag::ab);
      dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), engine));
      std::vector<uint8_t> out(md.get_size());
      dnnl::memory am(md, engine, a.bytes()), bm(md, engine, b.bytes()), cm(md, engine, out.data());

      std::vector<double> kilnTimes, onednnTimes;
      for (int r = 0; r < runs + 2; ++r) {  // the first two of each are warm-up
        auto t0 = Clock::now();
        auto result = (*executable)->run({a, b});
        auto t1 = Clock::now();
        if (!result.isOk()) {
          std::fprintf(stderr, "%s\n", result.status().message().c_str());
          return 1;
        }
        matmul.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
        stream.wait();
        auto t2 = Clock::now();
        if (r >= 2) {
          kilnTimes.push_back(std::chrono::duration<double>(t1 - t0).count());
          onednnTimes.push_back(std::chrono::duration<double>(t2 - t1).count());
        }
      }
      double k = median(kilnTimes), d = median(onednnTimes), flops = 2.0 * n * n * double(n);
      std::printf("%-6s %5d %12.3f %12.3f %10.1f %10.1f %7.0f%%\n", element, n, k * 1e3, d * 1e3, flops / k / 1e9,
                  flops / d / 1e9, 100.0 * d / k);
    }
  }
  return 0;
}
