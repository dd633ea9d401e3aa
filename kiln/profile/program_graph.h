// Pictures of an optimized program (`kiln-opt --graph`, `--memory-timeline`):
// the entry function as a graph of its ops, with each kiln.fusion a cluster
// of the ops inside it, and its buffers' live ranges. docs/profiling.md.
//
// The graph is data first (ProgramGraph), written out as a self-contained
// HTML page (an SVG drawn by a simple layered layout of our own, with inline
// script for hovering and clicking: no network), as Graphviz's dot language,
// or as SVG through the `dot` program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

struct ProgramGraph {
  enum class NodeKind {
    Parameter,
    Constant,
    Op,       // an emitted kernel of its own (or a view)
    Library,  // a library call (oneDNN)
    Routine,  // run by a runtime routine of the cpu back end (kiln/backends/cpu/routines.h)
    Control,  // while / if / case / call: its regions run as programs of their own
    Fused,    // an op inside a fusion cluster
    Return,
  };
  struct Node {
    NodeKind kind = NodeKind::Op;
    std::string label;     // "exponential", "%arg0", "dot_general"
    std::string text;      // the op as kiln-opt prints it (shortened when long)
    std::string location;  // file:line:col, or ""
    int cluster = -1;      // the fusion it is in
  };
  struct Cluster {
    std::string label;     // "loop fusion [exponential, multiply] model.py:3"
    std::string fusionKind;  // "loop", "input", "output", "multi_output"
    bool library = false;  // runs a library call with the rest as its epilogue
    std::string text;
    std::string location;
    double flops = 0, bytes = 0;  // the cost model's (kiln/passes/op_summary.h)
    std::vector<int> nodes;
  };
  struct Edge {
    int from = 0, to = 0;
    std::string type;   // "tensor<64x256xf32>"
    int64_t bytes = 0;  // what the value occupies in memory
    bool internal = false;  // between two ops of one fusion: the value never reaches memory
  };
  std::string function;  // its name
  std::vector<Node> nodes;
  std::vector<Cluster> clusters;
  std::vector<Edge> edges;
};

// The graph of `function`'s body (its top-level ops; the regions of control
// flow are not drawn).
ProgramGraph buildProgramGraph(const Operation& function);

// One HTML page; `title` heads it.
std::string programGraphHtml(const ProgramGraph& graph, const std::string& title);
// Graphviz's dot language: fusions as `subgraph cluster_N`.
std::string programGraphDot(const ProgramGraph& graph);
// Runs Graphviz's `dot -Tsvg` on `dot`; an error saying how to install it
// when `dot` is not on PATH.
Expected<std::string> dotToSvg(const std::string& dot);

// The buffers of `function` (buffer assignment over its schedule) as live
// ranges: one rectangle per buffer at its arena offset (parameters and
// constants in a band of their own), under a curve of the bytes live at each
// step with the peak marked.
std::string memoryTimelineSvg(const Operation& function);

// "12 B", "4.0 KiB", "1.5 MiB".
std::string byteSize(int64_t bytes);

}  // namespace kiln
