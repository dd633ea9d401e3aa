// kiln-opt: parse, verify, run passes and print StableHLO text.
//
//   kiln-opt [FILE|-] [-o OUT] [--generic] [--split-input-file]
//            [--verify-diagnostics] [--allow-unregistered-dialect]
//            [--print-debuginfo] [--passes=LIST | --pipeline=NAME]
//            [--pass-timing] [--dump-dir DIR] [--print-after NAME|all] [--help]
//
// Every flag is declared once, in `flagTable()`; arguments come from
// $KILN_FLAGS followed by the command line (kiln/support/flags.h).
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/fusion.h"
#include "kiln/passes/memory_stats.h"
#include "kiln/passes/pass.h"
#include "kiln/support/diagnostic.h"
#include "kiln/support/flags.h"

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
  std::string passes;    // --passes=inline,cse
  std::string pipeline;  // --pipeline=cpu
  PassManagerOptions passOptions{.verifyEach = true};
  bool explainFusion = false;
  bool stats = false;
  bool memoryReport = false;
};

struct Flag {
  std::string_view name;      // "--generic", "-o"
  std::string_view valueName; // empty: a boolean switch; else it takes a value
  std::string_view help;
  std::function<void(Options&, const std::string&)> apply;
};

const std::vector<Flag>& flagTable() {
  static const std::vector<Flag> kFlags = {
      {"-o", "OUT", "write the output to OUT instead of stdout",
       [](Options& o, const std::string& v) { o.output = v; }},
      {"--generic", "", "print every op in the generic form",
       [](Options& o, const std::string&) { o.generic = true; }},
      {"--split-input-file", "", "handle each `// -----` chunk of the input on its own",
       [](Options& o, const std::string&) { o.splitInputFile = true; }},
      {"--verify-diagnostics", "",
       "check the diagnostics against `// expected-error @+1 {{...}}` annotations instead of printing them",
       [](Options& o, const std::string&) { o.verifyDiagnostics = true; }},
      {"--allow-unregistered-dialect", "", "keep ops of unknown dialects (generic form) as opaque ops",
       [](Options& o, const std::string&) {
         o.allowUnregisteredDialect = true;
         o.passOptions.verify.allowUnregistered = true;
       }},
      {"--print-debuginfo", "", "print `loc(...)` locations",
       [](Options& o, const std::string&) { o.printDebugInfo = true; }},
      {"--passes", "LIST", "run the comma-separated passes (see the list below)",
       [](Options& o, const std::string& v) { o.passes = v; }},
      {"--pipeline", "NAME", "run a named pipeline (see the list below)",
       [](Options& o, const std::string& v) { o.pipeline = v; }},
      {"--pass-timing", "", "report each pass's wall time on stderr",
       [](Options& o, const std::string&) { o.passOptions.timing = true; }},
      {"--dump-dir", "DIR", "write the IR before and after each pass to numbered files in DIR",
       [](Options& o, const std::string& v) { o.passOptions.dumpDir = v; }},
      {"--print-after", "NAME", "print the IR on stderr after pass NAME (or 'all'); repeatable",
       [](Options& o, const std::string& v) { o.passOptions.printAfter.insert(v); }},
      {"--explain-fusion", "", "print on stderr, for each producer/consumer pair considered, whether it was fused and why",
       [](Options& o, const std::string&) { o.explainFusion = true; }},
      {"--stats", "", "print key=value statistics on stderr (kernels, fusions, peak_bytes, ...)",
       [](Options& o, const std::string&) { o.stats = true; }},
      {"--memory-report", "", "print the buffer assignment on stderr: buffers and what shares them",
       [](Options& o, const std::string&) { o.memoryReport = true; }},
      {"--no-verify-each", "", "do not verify the IR after every pass",
       [](Options& o, const std::string&) { o.passOptions.verifyEach = false; }},
      {"--help", "", "show this help", [](Options& o, const std::string&) { o.help = true; }},
  };
  return kFlags;
}

void printHelp() {
  std::cout << "usage: kiln-opt [FILE|-] [options]\n\n"
               "Parses StableHLO text (FILE, or stdin for '-'), verifies it and prints it.\n"
               "Flags may also be given in $KILN_FLAGS (the command line wins).\n\noptions:\n";
  for (const Flag& f : flagTable()) {
    std::string lhs = std::string(f.name) + (f.valueName.empty() ? "" : " " + std::string(f.valueName));
    std::cout << "  " << lhs << std::string(lhs.size() < 30 ? 30 - lhs.size() : 1, ' ') << f.help << "\n";
  }
  std::cout << "\npasses:\n";
  for (const PassInfo& p : allPasses())
    std::cout << "  " << p.name << std::string(p.name.size() < 30 ? 30 - p.name.size() : 1, ' ')
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

// Fills `opts` from the arguments; returns an error message on bad usage.
std::optional<std::string> parseArguments(const std::vector<std::string>& args, Options& opts) {
  bool haveInput = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() > 1 && arg[0] == '-') {
      std::string name = arg, value;
      size_t eq = arg.find('=');
      bool inlineValue = eq != std::string::npos && arg.rfind("--", 0) == 0;
      if (inlineValue) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
      const Flag* flag = nullptr;
      for (const Flag& f : flagTable())
        if (f.name == name) flag = &f;
      if (!flag) return "unknown option '" + arg + "' (see --help)";
      if (flag->valueName.empty()) {
        if (inlineValue) return "option '" + name + "' takes no value";
      } else if (!inlineValue) {
        if (i + 1 == args.size()) return "option '" + name + "' needs a value";
        value = args[++i];
      }
      flag->apply(opts, value);
      continue;
    }
    if (haveInput) return "more than one input file given ('" + opts.input + "' and '" + arg + "')";
    opts.input = arg;
    haveInput = true;
  }
  return std::nullopt;
}

std::optional<std::string> readInput(const std::string& path, std::string& text) {
  std::ostringstream contents;
  if (path == "-") {
    contents << std::cin.rdbuf();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return "input '" + path + "' is a directory";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot open input file '" + path + "'";
    contents << in.rdbuf();
    if (in.bad()) return "cannot read input file '" + path + "'";
  }
  text = std::move(contents).str();
  return std::nullopt;
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

// Parses and verifies one chunk. Returns its printed form, or the error.
Expected<std::string> processChunk(const SourceChunk& chunk, const std::string& filename, const Options& opts) {
  ParseOptions parseOpts;
  parseOpts.allowUnregisteredDialect = opts.allowUnregisteredDialect;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseModule(chunk.text, filename, parseOpts));
  VerifyOptions verifyOpts;
  verifyOpts.allowUnregistered = opts.allowUnregisteredDialect;
  KILN_RETURN_IF_ERROR(verifyModule(*module, verifyOpts));
  KILN_ASSIGN_OR_RETURN(std::optional<PassManager> passManager, passManagerFor(opts));
  if (passManager) KILN_RETURN_IF_ERROR(passManager->run(*module));
  if (opts.stats) std::cerr << memoryStatsLines(*module);
  if (opts.memoryReport) std::cerr << memoryReport(*module);
  PrintOptions printOpts;
  printOpts.generic = opts.generic;
  printOpts.debugInfo = opts.printDebugInfo;
  return printModule(*module, printOpts);
}

int run(const Options& opts) {
  std::string text;
  if (auto err = readInput(opts.input, text)) {
    std::cerr << "kiln-opt: error: " << *err << "\n";
    return 1;
  }
  const std::string filename = opts.input == "-" ? "<stdin>" : opts.input;
  std::vector<SourceChunk> chunks =
      opts.splitInputFile ? splitInputFile(text) : std::vector<SourceChunk>{{text, 1}};

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
  kiln::Options opts;
  if (auto err = kiln::parseArguments(kiln::argumentsWithEnvFlags(argc, argv), opts)) {
    std::cerr << "kiln-opt: error: " << *err << "\n";
    return 1;
  }
  if (opts.help) {
    kiln::printHelp();
    return 0;
  }
  if (opts.explainFusion) kiln::setFusionExplainSink([](const std::string& line) { std::cerr << line << "\n"; });
  return kiln::run(opts);
}
