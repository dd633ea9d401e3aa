// kiln-opt: parse, verify, run passes and print StableHLO text.
//
//   kiln-opt [FILE|-] [-o OUT] [--generic] [--split-input-file]
//            [--verify-diagnostics] [--allow-unregistered-dialect]
//            [--print-debuginfo] [--passes=LIST | --pipeline=NAME]
//            [--pass-timing] [--dump-dir DIR] [--print-after NAME|all]
//            [--graph OUT.html|OUT.svg] [--memory-timeline OUT.svg] [--help] ...
//
// Its flags are those of the registry in kiln/support/flags.cpp that apply
// to kiln-opt; arguments come from $KILN_FLAGS, then the command line.
#include <charconv>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/backends/gpu/cuda_compiler.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/fusion.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/memory_stats.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/profile/program_graph.h"
#include "kiln/support/diagnostic.h"
#include "kiln/support/flags.h"
#include "kiln/support/source_file.h"

namespace kiln {
namespace {

struct Options {
  std::string input = "-";
  std::string output = "-";
  bool generic = false;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  bool allowUnregisteredDialect = false;
  bool printDebugInfo = false;
  bool help = false;
  bool version = false;
  std::string passes;    // --passes=inline,cse
  std::string pipeline;  // --pipeline=cpu
  PassManagerOptions passOptions{.verifyEach = true};
  bool explainFusion = false;
  bool explainSharding = false;
  bool stats = false;
  bool memoryReport = false;
  std::string graph;           // --graph OUT.html | OUT.svg
  std::string memoryTimeline;  // --memory-timeline OUT.svg
};

// Applies one flag of the registry (kiln/support/flags.cpp) to `o`.
Status applyFlag(const FlagValue& f, Options& o) {
  if (f.is("-o")) o.output = f.text;
  else if (f.is("--generic")) o.generic = f.on();
  else if (f.is("--split-input-file")) o.splitInputFile = f.on();
  else if (f.is("--verify-diagnostics")) o.verifyDiagnostics = f.on();
  else if (f.is("--allow-unregistered-dialect"))
    o.allowUnregisteredDialect = o.passOptions.verify.allowUnregistered = f.on();
  else if (f.is("--print-debuginfo")) o.printDebugInfo = f.on();
  else if (f.is("--passes")) o.passes = f.text;
  else if (f.is("--pipeline")) o.pipeline = f.text;
  else if (f.is("--pass-timing")) o.passOptions.timing = f.on();
  else if (f.is("--dump-dir")) o.passOptions.dumpDir = f.text;
  else if (f.is("--print-after")) o.passOptions.printAfter.insert(f.text);
  else if (f.is("--explain-fusion")) o.explainFusion = f.on();
  else if (f.is("--explain-sharding")) o.explainSharding = f.on();
  else if (f.is("--stats")) o.stats = f.on();
  else if (f.is("--memory-report")) o.memoryReport = f.on();
  else if (f.is("--graph")) o.graph = f.text;
  else if (f.is("--memory-timeline")) o.memoryTimeline = f.text;
  else if (f.is("--no-verify-each")) o.passOptions.verifyEach = !f.on();
  else if (f.is("--help")) o.help = f.on();
  else if (f.is("--version")) o.version = f.on();
  else return error("internal error: kiln-opt does not handle its flag " + std::string(f.spec->name));
  return Status::ok();
}

void printHelp() {
  std::cout << "usage: kiln-opt [FILE|-] [options]\n\n"
               "Parses StableHLO text or a StableHLO portable artifact (MLIR bytecode, as jax.export\n"
               "writes it) from FILE, or stdin for '-' or no FILE; verifies it and prints it.\n"
               "Flags may also be given in $KILN_FLAGS (the command line wins).\n\n"
            << flagHelp(kKilnOpt) << "\npasses:\n";
  for (const PassInfo& p : allPasses())
    std::cout << "  " << p.name << std::string(p.name.size() < 24 ? 24 - p.name.size() : 1, ' ')
              << p.description << "\n";
  std::cout << "\npipelines:";
  for (const std::string& name : pipelineNames()) std::cout << " " << name;
  std::cout << "\n";
}

// The pass manager the options ask for; none when no passes were requested.
Expected<std::optional<PassManager>> passManagerFor(const Options& opts) {
  if (!opts.passes.empty() && !opts.pipeline.empty())
    return error("--passes and --pipeline cannot be combined");
  if (!opts.pipeline.empty()) {
    KILN_ASSIGN_OR_RETURN(PassManager pm, namedPipeline(opts.pipeline, opts.passOptions));
    return std::optional<PassManager>(std::move(pm));
  }
  if (!opts.passes.empty()) {
    KILN_ASSIGN_OR_RETURN(PassManager pm, parsePassList(opts.passes, opts.passOptions));
    return std::optional<PassManager>(std::move(pm));
  }
  return std::optional<PassManager>();
}

// `opts` from $KILN_FLAGS and the arguments; an error is bad usage.
Expected<Options> parseOptions(std::span<const std::string> args) {
  KILN_ASSIGN_OR_RETURN(ParsedFlags parsed, parseFlags(kKilnOpt, args, environmentFlags()));
  Options opts;
  for (const FlagValue& f : parsed.flags) KILN_RETURN_IF_ERROR(applyFlag(f, opts));
  if (parsed.positionals.size() > 1)
    return error("more than one input file given ('" + parsed.positionals[0] + "' and '" + parsed.positionals[1] +
                 "')");
  if (!parsed.positionals.empty()) opts.input = parsed.positionals[0];
  for (const std::string& name : opts.passOptions.printAfter) {
    if (name == "all" || lookupPass(name)) continue;
    std::string passes;
    for (const PassInfo& p : allPasses()) passes += ", " + std::string(p.name);
    return error("--print-after: unknown pass '" + name + "' (passes: all" + passes + ")");
  }
  if (!opts.graph.empty() && !opts.graph.ends_with(".html") && !opts.graph.ends_with(".svg"))
    return error("--graph: '" + opts.graph + "' must end in .html (an interactive page) or .svg (drawn by Graphviz)");
  if ((!opts.graph.empty() || !opts.memoryTimeline.empty()) && opts.splitInputFile)
    return error("--graph and --memory-timeline draw one module: they cannot be combined with --split-input-file");
  // A bad pass or pipeline name is bad usage, found before reading input.
  if (Expected<std::optional<PassManager>> pm = passManagerFor(opts); !pm) return pm.takeStatus();
  return opts;
}

// --- --verify-diagnostics ------------------------------------------------------

// One `// expected-<kind> @<where> {{text}}` annotation.
struct Expectation {
  Diagnostic::Severity severity;
  unsigned line;           // the line the diagnostic must be reported on
  unsigned annotationLine; // where the annotation is written
  std::string text;
  bool matched = false;
};

const char* severityName(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::Error: return "error";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Note: return "note";
  }
  return "error";
}

// Reads the annotations of `chunk` (line numbers of the whole file). As in
// mlir-opt, a line holds an annotation when it contains
// `expected-<kind> [@where] {{text}}` with the text closing the line.
std::vector<Expectation> parseExpectations(const SourceChunk& chunk) {
  static const std::regex kAnnotation(
      R"(expected-(error|warning|note)\s*(@([+-]?\d+|above|below))?\s*\{\{(.*)\}\}\s*$)");
  std::vector<std::string> lines;
  std::istringstream in(chunk.text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto isAnnotation = [&](size_t i) { return std::regex_search(lines[i], kAnnotation); };
  std::vector<Expectation> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, kAnnotation)) continue;
    unsigned lineNo = unsigned(i + 1);
    Expectation e{m[1] == "error"     ? Diagnostic::Severity::Error
                  : m[1] == "warning" ? Diagnostic::Severity::Warning
                                      : Diagnostic::Severity::Note,
                  lineNo, lineNo, m[4].str()};
    std::string where = m[3].str();
    if (where == "above" || where == "below") {
      // The nearest line in that direction that is not itself an annotation.
      long j = long(i);
      int step = where == "above" ? -1 : 1;
      do j += step;
      while (j >= 0 && size_t(j) < lines.size() && isAnnotation(size_t(j)));
      e.line = unsigned(j + 1);
    } else if (!where.empty()) {
      bool relative = where[0] == '+' || where[0] == '-';
      long n = 0;
      std::from_chars(where.data() + (where[0] == '+'), where.data() + where.size(), n);
      e.line = relative ? unsigned(long(lineNo) + n) : unsigned(n);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Matches `produced` (a diagnostic and its notes) against `expected`; returns
// the diagnostics that matched nothing.
std::vector<const Diagnostic*> matchDiagnostics(const Diagnostic& produced, std::vector<Expectation>& expected) {
  std::vector<const Diagnostic*> unexpected;
  std::vector<const Diagnostic*> all = {&produced};
  for (const Diagnostic& n : produced.notes) all.push_back(&n);
  for (const Diagnostic* d : all) {
    bool found = false;
    for (Expectation& e : expected) {
      if (e.matched || e.severity != d->severity || e.line != d->loc.line) continue;
      if (d->message.find(e.text) == std::string::npos) continue;
      e.matched = found = true;
      break;
    }
    if (!found) unexpected.push_back(d);
  }
  return unexpected;
}

// The mismatches between a chunk's annotations and its diagnostic (if
// `result` failed), one message each.
std::vector<std::string> diagnosticMismatches(const SourceChunk& chunk, const Expected<std::string>& result,
                                              const std::string& filename) {
  std::vector<std::string> problems;
  std::vector<Expectation> expected = parseExpectations(chunk);
  if (!result)
    for (const Diagnostic* d : matchDiagnostics(result.status().diag(), expected))
      problems.push_back("unexpected " + std::string(severityName(d->severity)) + ": " + d->str());
  for (const Expectation& e : expected)
    if (!e.matched)
      problems.push_back(filename + ":" + std::to_string(e.line) + ": expected " + severityName(e.severity) + " \"" +
                         e.text + "\" was not produced (annotation on line " + std::to_string(e.annotationLine) + ")");
  return problems;
}

// --- Driver --------------------------------------------------------------------

Status writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) return error("cannot write '" + path + "'");
  return Status::ok();
}

// --graph and --memory-timeline: pictures of the entry function of `module`.
Status writePictures(const Module& module, const std::string& filename, const Options& opts) {
  const Operation* entry = entryFunction(module);
  if (!entry) return error(filename + ": no function to draw");
  if (!opts.graph.empty()) {
    ProgramGraph graph = buildProgramGraph(*entry);
    if (opts.graph.ends_with(".html")) {
      KILN_RETURN_IF_ERROR(writeFile(opts.graph, programGraphHtml(graph, filename)));
    } else {
      KILN_ASSIGN_OR_RETURN(std::string svg, dotToSvg(programGraphDot(graph)));
      KILN_RETURN_IF_ERROR(writeFile(opts.graph, svg));
    }
  }
  if (!opts.memoryTimeline.empty()) KILN_RETURN_IF_ERROR(writeFile(opts.memoryTimeline, memoryTimelineSvg(*entry)));
  return Status::ok();
}

// --pipeline=cuda --dump-dir DIR: each kernel's .ll and .ptx (docs/gpu_backend.md).
Status dumpCudaKernels(const Module& module, const Options& opts) {
  gpu::CudaCompilation compiled = gpu::compileForCuda(module);
  KILN_RETURN_IF_ERROR(gpu::writeCudaDumps(compiled, opts.passOptions.dumpDir));
  std::cerr << "kiln-opt: cuda: " << compiled.kernels.size() << " kernels, " << compiled.matmuls.size()
            << " cuBLASLt matmuls, " << compiled.unsupported.size()
            << " ops the cuda back end cannot compile yet (" << opts.passOptions.dumpDir << "/cuda_kernels.txt)\n";
  return Status::ok();
}

// Parses and verifies one chunk. Returns its printed form, or the error.
Expected<std::string> processChunk(const SourceChunk& chunk, const std::string& filename, const Options& opts) {
  ParseOptions parseOpts;
  parseOpts.allowUnregisteredDialect = opts.allowUnregisteredDialect;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, isBytecode(chunk.text)
                                                             ? readBytecode(chunk.text, filename)
                                                             : parseModule(chunk.text, filename, parseOpts));
  VerifyOptions verifyOpts;
  verifyOpts.allowUnregistered = opts.allowUnregisteredDialect;
  KILN_RETURN_IF_ERROR(verifyModule(*module, verifyOpts));
  KILN_ASSIGN_OR_RETURN(std::optional<PassManager> passManager, passManagerFor(opts));
  if (passManager) KILN_RETURN_IF_ERROR(passManager->run(*module));
  if (opts.pipeline == "cuda" && !opts.passOptions.dumpDir.empty()) KILN_RETURN_IF_ERROR(dumpCudaKernels(*module, opts));
  if (opts.stats) std::cerr << memoryStatsLines(*module);
  if (opts.memoryReport) std::cerr << memoryReport(*module);
  if (!opts.graph.empty() || !opts.memoryTimeline.empty()) KILN_RETURN_IF_ERROR(writePictures(*module, filename, opts));
  PrintOptions printOpts;
  printOpts.generic = opts.generic;
  printOpts.debugInfo = opts.printDebugInfo;
  return printModule(*module, printOpts);
}

int run(const Options& opts) {
  Expected<std::string> read = readSourceText(opts.input);
  if (!read) {
    std::cerr << "kiln-opt: " << read.status().diag().str() << "\n";
    return 1;
  }
  const std::string& text = *read;
  const std::string filename = sourceDisplayName(opts.input);
  std::vector<SourceChunk> chunks =
      opts.splitInputFile && !isBytecode(text) ? splitInputFile(text) : std::vector<SourceChunk>{{text, 1}};

  bool failed = false;
  std::vector<std::string> outputs;
  for (const SourceChunk& chunk : chunks) {
    Expected<std::string> result = processChunk(chunk, filename, opts);
    if (opts.verifyDiagnostics) {
      std::vector<std::string> problems = diagnosticMismatches(chunk, result, filename);
      for (const std::string& p : problems) std::cerr << "kiln-opt: " << p << "\n";
      failed |= !problems.empty();
    } else if (!result) {
      std::cerr << result.status().message() << "\n";
      failed = true;
    }
    if (result) outputs.push_back(std::move(*result));
  }

  std::string joined;
  for (size_t i = 0; i < outputs.size(); ++i) joined += (i ? "// -----\n" : "") + outputs[i];
  if (opts.output == "-") {
    std::cout << joined;
  } else {
    std::ofstream out(opts.output, std::ios::binary);
    if (!out || !(out << joined)) {
      std::cerr << "kiln-opt: error: cannot write output file '" << opts.output << "'\n";
      return 1;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  kiln::Expected<kiln::Options> opts = kiln::parseOptions(args);
  if (!opts) {
    std::cerr << "kiln-opt: error: " << opts.status().diag().message << "\nrun 'kiln-opt --help' for usage\n";
    return 2;
  }
  if (opts->help) {
    kiln::printHelp();
    return 0;
  }
  if (opts->version) {
    std::cout << kiln::versionLine("kiln-opt") << "\n";
    return 0;
  }
  if (opts->explainFusion) kiln::setFusionExplainSink([](const std::string& line) { std::cerr << line << "\n"; });
  if (opts->explainSharding)
    kiln::setShardingExplainSink([](const std::string& line) { std::cerr << line << "\n"; });
  return kiln::run(*opts);
}
