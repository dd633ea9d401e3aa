// `kiln run --profile N`: a table of the run's steps (kernels, library calls,
// routines, control flow) with their median time, their cost from the cost
// model (kiln/passes/op_summary.h) and how close they come to this machine's
// roofs, which are measured when the profile starts. `--profile-json` writes
// the same as JSON, which `python -m kiln.roofline` draws. docs/profiling.md.
#pragma once

#include <string>
#include <vector>

#include "kiln/backends/cpu/cpu_executable.h"

namespace kiln::tool {

// This machine's roofs, measured on `threads` threads: a STREAM triad over
// arrays well beyond the last-level cache (plain C++: no kiln code), and an
// f32 GEMM of 1024^3 through kiln's cpu back end (a oneDNN matmul). The best
// of a few runs each; together well under a second.
struct Roofs {
  double bytesPerSecond = 0;
  double flopsPerSecond = 0;
  int threads = 0;
};
Expected<Roofs> measureRoofs(int threads);

// One row of the table: a step of the program, or several consecutive steps
// of one op (an output fusion run as its library call and an epilogue
// kernel, a multi-output fusion run as a kernel per output).
struct ProfileRow {
  const Operation* op = nullptr;
  std::string kind;    // "kernel", "oneDNN", "routine: native gather", "while", "oneDNN + kernel", ...
  int depth = 0;       // 0: a step of the function; 1: of a region of one, ...
  double seconds = 0;  // per run: the median over the runs (of the steps' sum, for a row of several)
  double calls = 0;    // per run
  bool costed = false; // flops and bytes apply (control flow's are its regions' rows)
  double flops = 0;    // per run: the op's cost times its calls
  double bytes = 0;
};

struct ProfileReport {
  int runs = 0;
  double seconds = 0;  // per run: the sum of the function's steps' medians (shares add up to 1)
  Roofs roofs;
  std::vector<ProfileRow> rows;  // program order
};

// The report of `runs` (one profile per run, as runProfiled fills it from
// empty) against `roofs`.
ProfileReport buildReport(const std::vector<std::vector<cpu::StepProfile>>& runs, const Roofs& roofs);

// What bounds a row: "memory" or "compute" by the roofline (the lower roof
// at the row's flops per byte), or "overhead" when it reaches less than a
// tenth of that roof and its calls take under 5 us (call and thread hand-off
// costs dominate). Empty for rows without a cost.
std::string boundOf(const ProfileRow& row, const Roofs& roofs);
// The achieved fraction of the roof that bounds the row by the roofline.
double roofFraction(const ProfileRow& row, const Roofs& roofs);

// The table (kiln run's stderr) and the JSON document (--profile-json).
std::string profileTable(const ProfileReport& report);
std::string profileJson(const ProfileReport& report);

}  // namespace kiln::tool
