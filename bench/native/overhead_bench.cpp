// Per-call overhead of running tiny programs (GitHub issue 5: "a program of
// ten tiny ops on f32[8], per call"), measured three ways in one run so the
// figures read as ratios against a peer rather than as absolute times:
//
//   peer      a hand-written C++ loop computing the same thing (the floor)
//   cpu run   kiln::cpu::CpuExecutable::run: the back end alone
//   runtime   kiln::runtime Executable::execute + awaiting the result, both
//             as it runs by default (inline on the calling thread) and
//             handed to a worker thread (ExecuteOptions::mayRunInline=false)
//   traced    cpu run again while a trace records (kiln/support/trace.h):
//             what recording costs. Every other column runs with tracing
//             compiled in and off, the state it is always in unless asked
//             for; docs/profiling.md compares them with a build from before
//             tracing existed.
//
// Built as kiln_overhead_bench; not a test (ctest does not run it). Usage:
//   build/kiln_overhead_bench [calls-per-repeat]
// KILN_OVERHEAD_CPU_TIME=1 reports the process's CPU time per call instead
// of wall time: on a loaded host the wall time of a microsecond call is
// mostly preemption (the tiny MLP's execute read 4-9 us of wall time where
// it took 1.7 us of CPU).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/parse/parser.h"
#include "kiln/runtime/runtime.h"
#include "kiln/support/trace.h"

namespace {

using namespace kiln;

// Ten elementwise ops on f32[8].
constexpr const char* kTenOps = R"(
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %x, %x : tensor<8xf32>
  %1 = stablehlo.multiply %0, %x : tensor<8xf32>
  %2 = stablehlo.subtract %1, %x : tensor<8xf32>
  %3 = stablehlo.maximum %2, %x : tensor<8xf32>
  %4 = stablehlo.minimum %3, %0 : tensor<8xf32>
  %5 = stablehlo.add %4, %1 : tensor<8xf32>
  %6 = stablehlo.multiply %5, %5 : tensor<8xf32>
  %7 = stablehlo.subtract %6, %2 : tensor<8xf32>
  %8 = stablehlo.abs %7 : tensor<8xf32>
  %9 = stablehlo.negate %8 : tensor<8xf32>
  return %9 : tensor<8xf32>
}
)";

void tenOpsByHand(const float* x, float* out) {
  for (int i = 0; i < 8; ++i) {
    float v0 = x[i] + x[i], v1 = v0 * x[i], v2 = v1 - x[i];
    float v3 = std::max(v2, x[i]), v4 = std::min(v3, v0), v5 = v4 + v1;
    float v6 = v5 * v5, v7 = v6 - v2;
    out[i] = -std::fabs(v7);
  }
}

// bench/run's tiny_mlp_batch1: a 32-32-32-10 MLP (tanh) at batch 1.
std::string layer(int in, int out, const std::string& x, const std::string& w, const std::string& b,
                  const std::string& name, bool tanh) {
  std::string t = "tensor<1x" + std::to_string(out) + "xf32>";
  std::string s = "  %" + name + "d = stablehlo.dot_general " + x + ", " + w +
                  ", contracting_dims = [1] x [0] : (tensor<1x" + std::to_string(in) + "xf32>, tensor<" +
                  std::to_string(in) + "x" + std::to_string(out) + "xf32>) -> " + t + "\n";
  s += "  %" + name + "b = stablehlo.broadcast_in_dim " + b + ", dims = [1] : (tensor<" + std::to_string(out) +
       "xf32>) -> " + t + "\n";
  s += "  %" + name + (tanh ? "s" : "") + " = stablehlo.add %" + name + "d, %" + name + "b : " + t + "\n";
  if (tanh) s += "  %" + name + " = stablehlo.tanh %" + name + "s : " + t + "\n";
  return s;
}

std::string mlpText() {
  std::string s =
      "func.func @main(%x: tensor<1x32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>, "
      "%w2: tensor<32x32xf32>, %b2: tensor<32xf32>, %w3: tensor<32x10xf32>, %b3: tensor<10xf32>) "
      "-> tensor<1x10xf32> {\n";
  s += layer(32, 32, "%x", "%w1", "%b1", "h1", true);
  s += layer(32, 32, "%h1", "%w2", "%b2", "h2", true);
  s += layer(32, 10, "%h2", "%w3", "%b3", "y", false);
  return s + "  return %y : tensor<1x10xf32>\n}\n";
}

void mlpByHand(const std::vector<std::vector<float>>& in, float* out) {
  float h1[32], h2[32];
  auto dense = [](const float* x, int n, const float* w, const float* b, int m, float* y, bool tanh) {
    for (int j = 0; j < m; ++j) {
      float acc = 0;
      for (int k = 0; k < n; ++k) acc += x[k] * w[k * m + j];
      y[j] = tanh ? std::tanh(acc + b[j]) : acc + b[j];
    }
  };
  dense(in[0].data(), 32, in[1].data(), in[2].data(), 32, h1, true);
  dense(h1, 32, in[3].data(), in[4].data(), 32, h2, true);
  dense(h2, 32, in[5].data(), in[6].data(), 10, out, false);
}

// Keeps the compiler from dropping the peer's work.
void escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

// CPU time of the whole process (every thread), in microseconds.
double processCpuMicros() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

// Microseconds per call of `fn`: the median of 7 repeats of `calls` calls,
// in wall time, or (KILN_OVERHEAD_CPU_TIME=1) in the process's CPU time,
// which preemption by other processes on a loaded host does not count.
double perCall(int calls, const std::function<void()>& fn) {
  static const bool cpuTime = [] {
    const char* v = std::getenv("KILN_OVERHEAD_CPU_TIME");
    return v && std::strcmp(v, "0") != 0;
  }();
  auto now = [] {
    if (cpuTime) return processCpuMicros();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  for (int i = 0; i < calls / 10 + 10; ++i) fn();
  std::vector<double> repeats;
  for (int r = 0; r < 7; ++r) {
    double start = now();
    for (int i = 0; i < calls; ++i) fn();
    repeats.push_back((now() - start) / calls);
  }
  std::sort(repeats.begin(), repeats.end());
  return repeats[repeats.size() / 2];
}

[[noreturn]] void fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "overhead_bench: %s: %s\n", what.c_str(), s.diag().str().c_str());
  std::exit(1);
}

template <typename T>
T unwrap(const std::string& what, Expected<T> e) {
  if (!e) fail(what, e.status());
  return std::move(*e);
}

// Measures one program; `inputs` are its arguments, `byHand` the peer, and
// the results are compared with the peer's (max abs difference printed).
void measure(const char* name, const std::string& text, const std::vector<std::vector<float>>& inputs,
             const std::function<void(float*)>& byHand, int outCount, int calls, runtime::Client& client) {
  std::unique_ptr<Module> module = unwrap(name, parseModule(text, name));
  std::unique_ptr<cpu::CpuExecutable> cpuExe = unwrap(name, cpu::compileForCpu(*module, "main"));
  std::unique_ptr<runtime::Executable> exe = unwrap(name, client.compile(*module));

  std::vector<interp::Tensor> tensors;
  std::vector<runtime::BufferRef> buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Type type = exe->parameterTypes()[i];
    interp::Tensor t(type);
    std::copy(inputs[i].begin(), inputs[i].end(), reinterpret_cast<float*>(t.bytes()));
    tensors.push_back(t);
    buffers.push_back(unwrap(name, client.bufferFromLiteral(interp::toLiteral(t))));
  }

  std::vector<float> expected(outCount), got(outCount);
  byHand(expected.data());
  std::vector<interp::Tensor> out = unwrap(name, cpuExe->run(tensors));
  const float* o = reinterpret_cast<const float*>(out[0].bytes());
  double maxDiff = 0;
  for (int i = 0; i < outCount; ++i) maxDiff = std::max(maxDiff, double(std::fabs(o[i] - expected[i])));

  double peer = perCall(calls * 10, [&] {
    byHand(got.data());
    escape(got.data());
  });
  double cpuRun = perCall(calls, [&] {
    if (!cpuExe->run(tensors)) fail(name, error("run failed"));
  });
  auto runtimeCall = [&](bool mayRunInline) {
    runtime::ExecuteOptions options;
    options.mayRunInline = mayRunInline;
    return perCall(calls, [&] {
      std::vector<runtime::BufferRef> results = unwrap(name, exe->execute(buffers, options));
      Status s = results[0]->awaitReady();
      if (!s.isOk()) fail(name, s);
    });
  };
  double inlined = runtimeCall(true), handedOff = runtimeCall(false);
  trace::start();
  double traced = perCall(calls, [&] {
    if (!cpuExe->run(tensors)) fail(name, error("run failed"));
  });
  trace::stop();
  std::printf("%-22s peer %7.3f us | cpu run %7.2f us (%6.1fx) | runtime execute+await %7.2f us (%6.1fx) | "
              "via worker thread %7.2f us (%6.1fx) | max |kiln - peer| %.2g | cpu run while tracing %7.2f us\n",
              name, peer, cpuRun, cpuRun / peer, inlined, inlined / peer, handedOff, handedOff / peer, maxDiff,
              traced);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: kiln_overhead_bench [CALLS]\n\n"
                "The per-call cost of a program of ten tiny ops on f32[8] and of a tiny MLP: a\n"
                "hand-written C++ loop, CpuExecutable::run, the runtime's execute + await inline and\n"
                "through a worker thread (tracing off), and CpuExecutable::run while a trace records;\n"
                "CALLS calls per repeat (default 2000). KILN_OVERHEAD_CPU_TIME=1: the process's CPU time\n"
                "per call instead of wall time (on a loaded host, where preemption swamps wall time).\n");
    return 0;
  }
  int calls = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (calls < 1) calls = 2000;
  std::unique_ptr<runtime::Client> client = unwrap("client", runtime::Client::create());

  std::vector<std::vector<float>> x = {{0.5f, -1.25f, 2.0f, 0.0f, 3.5f, -0.75f, 1.0f, -2.5f}};
  measure("ten ops on f32[8]", kTenOps, x, [&](float* out) { tenOpsByHand(x[0].data(), out); }, 8, calls, *client);

  std::vector<std::vector<float>> mlp;
  unsigned seed = 1;
  auto random = [&] { return ((seed = seed * 1103515245u + 12345u) >> 8 & 0xffff) / 65536.0f - 0.5f; };
  for (int n : {32, 32 * 32, 32, 32 * 32, 32, 32 * 10, 10}) {
    mlp.emplace_back(n);
    for (float& v : mlp.back()) v = random();
  }
  measure("tiny MLP 32-32-32-10", mlpText(), mlp, [&](float* out) { mlpByHand(mlp, out); }, 10, calls, *client);
  return 0;
}
