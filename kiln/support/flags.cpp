#include "kiln/support/flags.h"

#include <charconv>
#include <cstdlib>

namespace kiln {
namespace {

// Every flag of kiln, once. The tools' --help, `kiln help flags` and the
// Python package's check of KILN_FLAGS all read this table.
constexpr FlagSpec kFlags[] = {
    // Every tool.
    {"--help", "-h", FlagKind::Switch, "", kEveryTool, "show this help"},
    {"--version", "", FlagKind::Switch, "", kEveryTool, "print the version and exit"},

    // kiln-opt: printing.
    {"-o", "", FlagKind::Text, "OUT", kKilnOpt, "write the output to OUT instead of stdout"},
    {"--generic", "", FlagKind::Switch, "", kKilnOpt, "print every op in the generic form"},
    {"--split-input-file", "", FlagKind::Switch, "", kKilnOpt, "handle each `// -----` chunk of the input on its own"},
    {"--verify-diagnostics", "", FlagKind::Switch, "", kKilnOpt,
     "check the diagnostics against `// expected-error @+1 {{...}}` annotations instead of printing them"},
    {"--allow-unregistered-dialect", "", FlagKind::Switch, "", kKilnOpt,
     "keep ops of unknown dialects (generic form) as opaque ops"},
    {"--print-debuginfo", "", FlagKind::Switch, "", kKilnOpt, "print `loc(...)` locations"},
    // kiln-opt: passes.
    {"--passes", "", FlagKind::Text, "LIST", kKilnOpt, "run the comma-separated passes (see the list below)"},
    {"--pipeline", "", FlagKind::Text, "NAME", kKilnOpt, "run a named pipeline (see the list below)"},
    {"--pass-timing", "", FlagKind::Switch, "", kKilnOpt, "report each pass's wall time on stderr"},
    {"--dump-dir", "", FlagKind::Text, "DIR", kKilnOpt,
     "write the IR before and after each pass to numbered files in DIR (with --pipeline=cuda, also each kernel's .ll and .ptx)"},
    {"--print-after", "", FlagKind::Text, "NAME", kKilnOpt,
     "print the IR on stderr after pass NAME (or 'all'); repeatable"},
    {"--explain-fusion", "", FlagKind::Switch, "", kKilnOpt,
     "print on stderr, for each producer/consumer pair considered, whether it was fused and why"},
    {"--explain-sharding", "", FlagKind::Switch, "", kKilnOpt,
     "print on stderr, for each dimension of each value, the sharding propagation gave it and where it came from"},
    {"--stats", "", FlagKind::Switch, "", kKilnOpt,
     "print key=value statistics on stderr (kernels, fusions, peak_bytes, ...)"},
    {"--memory-report", "", FlagKind::Switch, "", kKilnOpt,
     "print the buffer assignment on stderr: buffers and what shares them"},
    {"--graph", "", FlagKind::Text, "OUT.html|OUT.svg", kKilnOpt,
     "draw the module (after the passes) as a graph: fusions as clusters of their ops, edges labelled with "
     "shapes and bytes, library calls and routines marked; .html is one self-contained page (hover or click "
     "an op for its text and location), .svg is drawn by Graphviz's `dot`"},
    {"--memory-timeline", "", FlagKind::Text, "OUT.svg", kKilnOpt,
     "draw each function's buffers (buffer assignment, after the passes) as live ranges over the schedule "
     "against their offsets, as SVG"},
    {"--no-verify-each", "", FlagKind::Switch, "", kKilnOpt, "do not verify the IR after every pass"},

    // kiln run.
    {"--entry", "", FlagKind::Text, "NAME", kKilnRun,
     "the function to run (default: @main if there is one, else the only public function)"},
    {"--input", "", FlagKind::Text, "PATH.npy", kKilnRun, "the next input, from a NumPy .npy file"},
    {"--input-literal", "", FlagKind::Text, "TEXT", kKilnRun,
     "the next input, as a literal such as 'dense<[1.0, 2.0]> : tensor<2xf32>' (give one --input or "
     "--input-literal per parameter, in order)"},
    {"--output-dir", "", FlagKind::Text, "DIR", kKilnRun,
     "save result i as DIR/result<i>.npy (elements of a tuple result as result<i>_<j>.npy)"},
    {"--print", "", FlagKind::Switch, "", kKilnRun, "also print the results when --output-dir is given"},
    {"--all-instances", "", FlagKind::Switch, "", kKilnRun,
     "for a module of several replicas or partitions, print (or save under DIR/instance<I>/) every instance's "
     "results, each after a line '// instance I (replica R, partition P)', as a multi-process run does for "
     "its own instances (docs/distributed.md); default: instance 0's alone"},
    {"--spmd", "", FlagKind::Switch, "", kKilnRun,
     "partition a program with Shardy shardings over its mesh (kiln-opt --pipeline=spmd), give each device "
     "its block of the whole inputs, run every device and print the whole results put together from the "
     "blocks (docs/spmd.md)"},
    {"--threads", "", FlagKind::Count, "N", kKilnRun | kPython,
     "cpu: kernel threads (default: one per core; in Python, the default Client's)", 1, 1024},
    {"--dump-dir", "", FlagKind::Text, "DIR", kKilnRun,
     "cpu: write the IR before and after each pass, the LLVM IR of the compiled kernels before and after "
     "optimization and their assembly to DIR (<function>.ll, .opt.ll, .s)"},
    {"--cache-dir", "", FlagKind::Text, "DIR", kKilnRun,
     "cpu: keep compiled code in DIR and reuse it when the same kernels are compiled again (by any process)"},
    {"--stats", "", FlagKind::Switch, "", kKilnRun, "cpu: print compile times and step counts to stderr"},
    {"--profile", "", FlagKind::Count, "N", kKilnRun,
     "cpu: after the run, run N more times timing every step, and print a table of the steps to stderr: "
     "median time per run, share, flops and bytes (cost model), GFLOP/s and GB/s, the fraction of this "
     "machine's roofs (a triad and a GEMM measured first) and what bounds each (docs/profiling.md)",
     1, 100000},
    {"--profile-json", "", FlagKind::Text, "FILE", kKilnRun,
     "cpu: write --profile's table to FILE as JSON (--profile 10 unless --profile is given); "
     "`python -m kiln.roofline FILE` draws it"},
    {"--trace", "", FlagKind::Text, "OUT.json", kKilnRun,
     "write a timeline of compiling and running (parse, each pass, codegen, every kernel, library call and "
     "routine on every thread) to OUT.json in the Chrome trace event format: open it in "
     "https://ui.perfetto.dev or chrome://tracing"},

    // kiln run and kiln test.
    {"--backend", "", FlagKind::Text, "cpu|interpreter|cuda", kKilnRun | kKilnTest,
     "the back end to run on (default: cpu, which compiles with LLVM and oneDNN: see docs/cpu_backend.md; "
     "interpreter is the reference interpreter; cuda runs on an NVIDIA GPU: see docs/gpu_backend.md)"},

    // kiln test.
    {"--jobs", "-j", FlagKind::Count, "N", kKilnTest, "run N tests at once (default: the number of CPUs)", 1, 1024},
    {"--processes", "", FlagKind::Count, "N", kKilnTest,
     "run interpreter.run_parallel's programs on the cpu back end as N processes of this host (default 1: "
     "threads of one process), each running a contiguous block of the instances, collectives between them in "
     "shared memory as under `kiln launch`",
     1, 64},
    {"--timeout", "", FlagKind::Text, "SECONDS", kKilnTest,
     "stop a test after this long and report an ERROR (default: $KILN_TEST_TIMEOUT_S, else 60; 0 = no limit)"},
    {"--xfail", "", FlagKind::Text, "FILE", kKilnTest,
     "tests known to fail, one `file:func  # reason` per line: they print XFAIL and do not count as failed; "
     "one that passes prints XPASS and counts as failed (may be given several times: the lists are merged)"},
    {"--quiet", "", FlagKind::Switch, "", kKilnTest, "print only the lines of tests that did not pass"},

    // kiln launch.
    {"--num-processes", "-n", FlagKind::Count, "N", kKilnLaunch, "start N processes of the command", 1, 1024},
    {"--port", "", FlagKind::Count, "N", kKilnLaunch,
     "serve the key-value store the processes meet at on port N (default: a free one)", 0, 65535},

    // Libraries.
    {"--cpu_devices", "", FlagKind::Count, "N", kRuntime,
     "CPU devices of every runtime Client (overrides ClientOptions::numDevices)", 1, 1024},
    {"--explain_recompiles", "", FlagKind::Switch, "", kPython, "kiln.jit says why it compiles again"},
    {"--cpu_max_isa", "", FlagKind::Text, "sse4.2|avx2|avx512|native", kCpuBackend,
     "use no x86 instructions beyond this set, even where the host has more (as XLA's --xla_cpu_max_isa): "
     "compiled kernels, kiln's hand-vectorized routines and oneDNN; avx512 leaves out AMX. Runs and measures, "
     "on one host, the code hosts without AVX-512 get (docs/cpu_backend.md)"},
};

// Flag names compare with '_' and '-' as one character after the leading "--".
bool sameName(std::string_view a, std::string_view b) {
  if (!a.starts_with("--") || !b.starts_with("--") || a.size() != b.size()) return a == b;
  for (size_t i = 2; i < a.size(); ++i)
    if ((a[i] == '_' ? '-' : a[i]) != (b[i] == '_' ? '-' : b[i])) return false;
  return true;
}

// The row for `name` that `reader` reads, else any row for it, else null.
const FlagSpec* findFlag(std::string_view name, FlagReader reader) {
  const FlagSpec* other = nullptr;
  for (const FlagSpec& f : kFlags) {
    if (!f.matches(name)) continue;
    if (f.readers & reader) return &f;
    other = &f;
  }
  return other;
}

// Every reader of some row named `name`.
unsigned readersOf(std::string_view name) {
  unsigned readers = 0;
  for (const FlagSpec& f : kFlags)
    if (f.matches(name)) readers |= f.readers;
  return readers;
}

std::string readerList(unsigned readers) {
  std::string names;
  for (unsigned bit = 1; bit <= kCpuBackend; bit <<= 1)
    if (readers & bit) names += (names.empty() ? "" : ", ") + std::string(readerName(FlagReader(bit)));
  return names;
}

// Fills in the value of `v` from `text`, checking it against its kind.
Status setValue(FlagValue& v, std::string_view name, std::string_view text) {
  const FlagSpec& f = *v.spec;
  if (f.kind == FlagKind::Switch) {
    if (text == "true" || text == "1") v.text = "true";
    else if (text == "false" || text == "0") v.text = "false";
    else return error("option '" + std::string(name) + "' takes no value other than true or false, got '" +
                      std::string(text) + "'");
    return Status::ok();
  }
  v.text = std::string(text);
  if (f.kind == FlagKind::Count) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v.number);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v.number < f.min ||
        v.number > f.max)
      return error(std::string(f.name) + " needs a whole number from " + std::to_string(f.min) + " to " +
                   std::to_string(f.max) + ", got '" + std::string(text) + "'");
  }
  return Status::ok();
}

// Reads `words` (KILN_FLAGS's when `fromEnv`) into `out`.
Status readWords(FlagReader reader, std::span<const std::string> words, bool fromEnv, ParsedFlags& out) {
  auto fail = [&](const std::string& message) { return error(fromEnv ? "KILN_FLAGS: " + message : message); };
  bool onlyPositionals = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (onlyPositionals || word.size() < 2 || word[0] != '-') {  // "-" is stdin
      if (fromEnv) return fail("'" + word + "' is not an option (KILN_FLAGS holds options only)");
      out.positionals.push_back(word);
      continue;
    }
    if (word == "--") {
      onlyPositionals = true;
      continue;
    }
    size_t eq = word.find('=');
    std::string name = word.substr(0, eq);
    const FlagSpec* spec = findFlag(name, reader);
    if (!spec)
      return fail("unknown option '" + name + "'" +
                  (fromEnv ? ": no kiln tool or library reads it ('kiln help flags' lists those that exist)" : ""));
    FlagValue value{spec, "", 0, fromEnv};
    std::string text = eq != std::string::npos ? word.substr(eq + 1) : "true";
    if (spec->kind != FlagKind::Switch && eq == std::string::npos) {
      if (i + 1 == words.size()) return fail("option '" + name + "' needs a value");
      text = words[++i];
    }
    // Values are checked even for flags of other readers: a typo in
    // KILN_FLAGS is better found by the first tool that sees it.
    if (Status s = setValue(value, name, text); !s.isOk()) return fail(s.diag().message);
    if (spec->readers & reader) {
      out.flags.push_back(std::move(value));
    } else if (!fromEnv) {
      return fail("option '" + name + "' does not apply to " + std::string(readerName(reader)) + " (it is read by " +
                  readerList(readersOf(name)) + ")");
    }
  }
  return Status::ok();
}

// Appends `text` to `out` wrapped at 79 columns, lines after the first
// indented by `indent`.
void appendWrapped(std::string& out, std::string_view text, size_t column, size_t indent) {
  constexpr size_t kWidth = 79;
  while (!text.empty()) {
    size_t room = kWidth > column ? kWidth - column : 20;
    size_t cut = text.size();
    if (cut > room) {
      cut = text.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0) cut = text.find(' ');
      if (cut == std::string_view::npos) cut = text.size();
    }
    out += text.substr(0, cut);
    text.remove_prefix(cut);
    while (text.starts_with(' ')) text.remove_prefix(1);
    if (!text.empty()) out += "\n" + std::string(indent, ' ');
    column = indent;
  }
  out += "\n";
}

}  // namespace

std::string_view readerName(FlagReader reader) {
  switch (reader) {
    case kKilnOpt: return "kiln-opt";
    case kKilnRun: return "kiln run";
    case kKilnTest: return "kiln test";
    case kRuntime: return "the runtime";
    case kPython: return "the Python package";
    case kKilnLaunch: return "kiln launch";
    case kCpuBackend: return "the cpu back end";
  }
  return "?";
}

bool FlagSpec::matches(std::string_view word) const {
  return sameName(word, name) || (!shortName.empty() && word == shortName);
}

std::span<const FlagSpec> flagRegistry() { return kFlags; }

const FlagValue* ParsedFlags::last(std::string_view name) const {
  for (size_t i = flags.size(); i-- > 0;)
    if (flags[i].is(name)) return &flags[i];
  return nullptr;
}

Expected<ParsedFlags> parseFlags(FlagReader reader, std::span<const std::string> args, std::string_view envFlags) {
  ParsedFlags out;
  KILN_RETURN_IF_ERROR(readWords(reader, splitFlagWords(envFlags), true, out));
  KILN_RETURN_IF_ERROR(readWords(reader, args, false, out));
  return out;
}

std::string_view environmentFlags() {
  const char* env = std::getenv("KILN_FLAGS");
  return env ? env : "";
}

std::vector<std::string> splitFlagWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      inWord = true;
    } else if (quote) {
      if (c == quote) quote = 0; else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(std::move(word));
  return words;
}

std::string flagHelp(FlagReader reader) {
  constexpr size_t kHelpColumn = 26;
  std::string out = "options:\n";
  for (const FlagSpec& f : kFlags) {
    if (!(f.readers & reader)) continue;
    std::string lhs = "  ";
    if (!f.shortName.empty()) lhs += std::string(f.shortName) + ", ";
    lhs += std::string(f.name) + (f.valueName.empty() ? "" : " " + std::string(f.valueName));
    out += lhs;
    if (lhs.size() + 2 > kHelpColumn) out += "\n" + std::string(kHelpColumn, ' ');
    else out += std::string(kHelpColumn - lhs.size(), ' ');
    appendWrapped(out, f.help, kHelpColumn, kHelpColumn);
  }
  return out;
}

std::string flagTable() {
  std::string out =
      "Every flag of kiln and what reads it. Each may be given in $KILN_FLAGS: a\n"
      "reader skips those of others; a flag no reader knows is an error.\n\n";
  for (const FlagSpec& f : kFlags) {
    out += "  " + std::string(f.name) + (f.valueName.empty() ? "" : " " + std::string(f.valueName)) + "  [" +
           readerList(f.readers) + "]\n      ";
    appendWrapped(out, f.help, 6, 6);
  }
  return out;
}

std::string versionLine(std::string_view tool) {
#ifdef KILN_VERSION
  return std::string(tool) + " " + KILN_VERSION;
#else
  return std::string(tool) + " (version unknown)";
#endif
}

}  // namespace kiln
