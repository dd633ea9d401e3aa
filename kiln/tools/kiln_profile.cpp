#include "kiln/tools/kiln_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "kiln/parse/parser.h"
#include "kiln/passes/op_summary.h"
#include "kiln/support/format.h"
#include "kiln/support/thread_pool.h"

namespace kiln::tool {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// STREAM's triad a = b + 3 c over f32 arrays three times the size of a
// large last-level cache; bytes counted as STREAM does (12 per element).
double triadBytesPerSecond(ThreadPool& pool) {
  constexpr int64_t kElements = int64_t{1} << 23;
  constexpr int kRuns = 10;
  std::unique_ptr<float[]> a(new float[kElements]), b(new float[kElements]), c(new float[kElements]);
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  // Each thread first touches the part it will stream.
  pool.parallelFor(kElements, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) pa[i] = 0, pb[i] = 1, pc[i] = 2;
  });
  double best = 1e30;
  for (int run = 0; run < kRuns; ++run) {
    auto start = Clock::now();
    pool.parallelFor(kElements, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + 3.0f * pc[i];
    });
    best = std::min(best, secondsSince(start));
  }
  return 12.0 * kElements / best;
}

// An f32 1024^3 GEMM through kiln's cpu back end (a oneDNN matmul).
Expected<double> gemmFlopsPerSecond(int threads) {
  constexpr int kSize = 1024;
  constexpr int kRuns = 5;
  const std::string matrix = "tensor<1024x1024xf32>";
  std::string text = "func.func @main(%a: " + matrix + ", %b: " + matrix + ") -> " + matrix +
                     " {\n  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + matrix + ", " +
                     matrix + ") -> " + matrix + "\n  return %c : " + matrix + "\n}\n";
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseModule(text, "<gemm roof>"));
  cpu::CpuCompileOptions options;
  options.numThreads = threads;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuExecutable> gemm, cpu::compileForCpu(*module, "main", options));
  Type type = func::type(*module->lookupFunction("main")).inputs()[0];
  std::vector<interp::Tensor> args = {interp::Tensor(type), interp::Tensor(type)};
  double best = 1e30;
  for (int run = 0; run <= kRuns; ++run) {  // run 0 warms up: oneDNN's first call builds its kernel
    auto start = Clock::now();
    Expected<std::vector<interp::Tensor>> product = gemm->run(args);
    if (!product) return product.takeStatus();
    if (run > 0) best = std::min(best, secondsSince(start));
  }
  return 2.0 * kSize * kSize * kSize / best;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Steps that do no work of their own worth a row.
bool shown(const std::string& kind) {
  return kind != "view" && kind != "tuple" && kind != "get_tuple_element" && kind != "token";
}

bool isControlFlow(const std::string& kind) {
  return kind == "while" || kind == "if" || kind == "case" || kind == "call";
}

std::string format(const char* spec, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, value);
  return buf;
}

// A count in a column of 8.
std::string si(double value) {
  std::string text = siCount(value);
  return std::string(text.size() < 8 ? 8 - text.size() : 0, ' ') + text;
}

}  // namespace

Expected<Roofs> measureRoofs(int threads) {
  Roofs roofs;
  std::shared_ptr<ThreadPool> pool = ThreadPool::shared(threads);
  roofs.threads = pool->numThreads();
  roofs.bytesPerSecond = triadBytesPerSecond(*pool);
  KILN_ASSIGN_OR_RETURN(roofs.flopsPerSecond, gemmFlopsPerSecond(threads));
  return roofs;
}

ProfileReport buildReport(const std::vector<std::vector<cpu::StepProfile>>& runs, const Roofs& roofs) {
  ProfileReport report;
  report.runs = static_cast<int>(runs.size());
  report.roofs = roofs;
  if (runs.empty()) return report;
  // Rows in program order; consecutive steps of one op (at one depth) are one row.
  const std::vector<cpu::StepProfile>& first = runs.front();
  for (size_t i = 0; i < first.size(); ++i) {
    const cpu::StepProfile& step = first[i];
    std::vector<double> seconds;
    for (const std::vector<cpu::StepProfile>& run : runs) seconds.push_back(run[i].seconds);
    double perRun = median(std::move(seconds));
    if (step.depth == 0) report.seconds += perRun;
    if (!shown(step.kind)) continue;
    double calls = static_cast<double>(step.calls);
    ProfileRow* last = report.rows.empty() ? nullptr : &report.rows.back();
    if (last && last->op == step.op && last->depth == step.depth) {
      if (last->kind.find(step.kind) == std::string::npos) last->kind += " + " + step.kind;
      last->seconds += perRun;
      continue;
    }
    ProfileRow row;
    row.op = step.op;
    row.kind = step.kind;
    row.depth = step.depth;
    row.seconds = perRun;
    row.calls = calls;
    row.costed = !isControlFlow(step.kind);
    if (row.costed) {
      OpCost cost = opCost(*step.op);
      row.flops = cost.flops * calls;
      row.bytes = cost.bytes * calls;
    }
    report.rows.push_back(std::move(row));
  }
  return report;
}

double roofFraction(const ProfileRow& row, const Roofs& roofs) {
  if (!row.costed || row.seconds <= 0 || roofs.bytesPerSecond <= 0 || roofs.flopsPerSecond <= 0) return 0;
  // The roofline: at I flops per byte a kernel can reach min(peak, I x bandwidth) flops/s.
  if (row.flops <= 0) return row.bytes / row.seconds / roofs.bytesPerSecond;
  double attainable = row.bytes > 0 ? std::min(roofs.flopsPerSecond, row.flops / row.bytes * roofs.bytesPerSecond)
                                    : roofs.flopsPerSecond;
  return row.flops / row.seconds / attainable;
}

std::string boundOf(const ProfileRow& row, const Roofs& roofs) {
  if (!row.costed) return "";
  constexpr double kOverheadFraction = 0.1;
  constexpr double kOverheadSecondsPerCall = 5e-6;
  if (roofFraction(row, roofs) < kOverheadFraction && row.calls > 0 &&
      row.seconds / row.calls < kOverheadSecondsPerCall)
    return "overhead";
  bool memory = row.flops <= 0 || (row.bytes > 0 && row.flops / row.bytes * roofs.bytesPerSecond < roofs.flopsPerSecond);
  return memory ? "memory" : "compute";
}

std::string profileTable(const ProfileReport& report) {
  const Roofs& roofs = report.roofs;
  std::string out = "profile: " + std::to_string(report.runs) + " run(s), " +
                    format("%.3f", report.seconds * 1e3) + " ms per run (the steps' medians); roofs measured now on " +
                    std::to_string(roofs.threads) + " thread(s): triad " + format("%.1f", roofs.bytesPerSecond / 1e9) +
                    " GB/s, f32 GEMM " + format("%.1f", roofs.flopsPerSecond / 1e9) + " GFLOP/s\n";
  out += "      time/run   share  calls    flops    bytes   GFLOP/s    GB/s  roof  bound     kind  op\n";
  for (const ProfileRow& row : report.rows) {
    double share = report.seconds > 0 ? 100 * row.seconds / report.seconds : 0;
    std::string time = row.seconds >= 1e-3 ? format("%9.3f ms", row.seconds * 1e3) : format("%9.2f us", row.seconds * 1e6);
    out += "  " + time + format(" %6.1f%%", share) + format(" %6.0f", row.calls);
    if (row.costed) {
      double perSecond = row.seconds > 0 ? 1 / row.seconds : 0;
      out += " " + si(row.flops) + " " + si(row.bytes) +
             format(" %9.2f", row.flops * perSecond / 1e9) + format(" %7.2f", row.bytes * perSecond / 1e9) +
             format(" %4.0f%%", 100 * roofFraction(row, roofs)) + "  " + boundOf(row, roofs);
      out += std::string(10 - std::min<size_t>(10, boundOf(row, roofs).size()), ' ');
    } else {
      out += std::string(9 + 9 + 10 + 8 + 6 + 2 + 10, ' ');
    }
    out += std::string(2 * row.depth, ' ') + row.kind + "  " + opLabel(*row.op) + "\n";
  }
  return out;
}

std::string profileJson(const ProfileReport& report) {
  const Roofs& roofs = report.roofs;
  std::string out = "{\n  \"runs\": " + std::to_string(report.runs) +
                    ",\n  \"seconds_per_run\": " + formatDouble(report.seconds) +
                    ",\n  \"roofs\": {\"bytes_per_second\": " + formatDouble(roofs.bytesPerSecond) +
                    ", \"flops_per_second\": " + formatDouble(roofs.flopsPerSecond) +
                    ", \"threads\": " + std::to_string(roofs.threads) +
                    ", \"measured_by\": \"STREAM triad (f32, 3 x 32 MiB) and an f32 1024^3 GEMM (oneDNN through "
                    "kiln's cpu back end), at the start of this profile\"},\n  \"kernels\": [";
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const ProfileRow& row = report.rows[i];
    out += std::string(i ? "," : "") + "\n    {\"label\": " + jsonQuote(opLabel(*row.op)) +
           ", \"op\": " + jsonQuote(row.op->name()) + ", \"location\": " + jsonQuote(row.op->loc().str()) +
           ", \"kind\": " + jsonQuote(row.kind) + ", \"depth\": " + std::to_string(row.depth) +
           ", \"seconds_per_run\": " + formatDouble(row.seconds) +
           ", \"share\": " + formatDouble(report.seconds > 0 ? row.seconds / report.seconds : 0) +
           ", \"calls_per_run\": " + formatDouble(row.calls);
    if (row.costed) {
      double perSecond = row.seconds > 0 ? 1 / row.seconds : 0;
      out += ", \"flops_per_run\": " + formatDouble(row.flops) + ", \"bytes_per_run\": " + formatDouble(row.bytes) +
             ", \"flops_per_second\": " + formatDouble(row.flops * perSecond) +
             ", \"bytes_per_second\": " + formatDouble(row.bytes * perSecond) +
             ", \"roof_fraction\": " + formatDouble(roofFraction(row, roofs)) +
             ", \"bound\": " + jsonQuote(boundOf(row, roofs));
    }
    out += "}";
  }
  return out + "\n  ]\n}\n";
}

}  // namespace kiln::tool
