// The one registry of kiln's flags, and the parser every entry point uses.
//
// Each flag is declared once (flags.cpp): its name, its kind of value, its
// help, and which readers -- the tools, the runtime, the Python package --
// it applies to. A flag whose meaning differs between readers (--stats,
// --dump-dir) has one row per meaning, for disjoint sets of readers.
//
// KILN_FLAGS works like XLA_FLAGS: its whitespace-separated words (quotes
// group words) are read as options before the real arguments, so an explicit
// argument wins. Since every reader sees the same KILN_FLAGS, a reader skips
// the flags that belong to others; a flag no reader knows is an error.
// In a flag's name, '_' and '-' are one character after the leading "--"
// (--cpu_devices is --cpu-devices); a "--" word ends the options.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/support/diagnostic.h"

namespace kiln {

// Who reads a flag; a flag applies to a set of these (bits).
enum FlagReader : unsigned {
  kKilnOpt = 1,
  kKilnRun = 2,
  kKilnTest = 4,
  kRuntime = 8,  // kiln/runtime's Client (under the Python package and native benches)
  kPython = 16,  // the Python package (python/kiln/config.py)
  kKilnLaunch = 32,
  kCpuBackend = 64,  // the cpu back end, in every process that compiles for the CPU (KILN_FLAGS only)
};
constexpr unsigned kEveryTool = kKilnOpt | kKilnRun | kKilnTest | kKilnLaunch;

// "kiln-opt", "kiln run", "kiln test", "runtime", "python", "kiln launch".
std::string_view readerName(FlagReader reader);

enum class FlagKind {
  Switch,  // --x, or --x=true|false
  Text,    // --x VALUE or --x=VALUE
  Count,   // a whole number in [min, max]
};

struct FlagSpec {
  std::string_view name;       // "--pass-timing"
  std::string_view shortName;  // "-o", or empty
  FlagKind kind;
  std::string_view valueName;  // "DIR" (empty for a switch)
  unsigned readers;            // FlagReader bits
  std::string_view help;
  int64_t min = 0, max = 0;    // FlagKind::Count only

  // Whether `word` (without any "=value") names this flag.
  bool matches(std::string_view word) const;
};

std::span<const FlagSpec> flagRegistry();

// One flag as given.
struct FlagValue {
  const FlagSpec* spec;
  std::string text;        // the value; "true" or "false" for a switch
  int64_t number = 0;      // FlagKind::Count
  bool fromEnvironment = false;

  bool is(std::string_view name) const { return spec->matches(name); }
  bool on() const { return text == "true"; }
};

struct ParsedFlags {
  std::vector<FlagValue> flags;  // those of KILN_FLAGS first, then the command line's
  std::vector<std::string> positionals;

  // The last value given for `name`, or null.
  const FlagValue* last(std::string_view name) const;
};

// Reads `envFlags` (the text of KILN_FLAGS) and then `args` for `reader`.
// Flags of KILN_FLAGS that apply only to other readers are skipped; on the
// command line they are errors, as are flags no reader knows. The messages
// of errors about KILN_FLAGS start with "KILN_FLAGS: ".
Expected<ParsedFlags> parseFlags(FlagReader reader, std::span<const std::string> args,
                                 std::string_view envFlags);

// $KILN_FLAGS, or "" when unset.
std::string_view environmentFlags();

// Splits `text` into words; '...' and "..." group, backslash escapes.
std::vector<std::string> splitFlagWords(std::string_view text);

// The "options:" part of `reader`'s --help: one entry per flag, wrapped.
std::string flagHelp(FlagReader reader);
// Every flag and its readers (`kiln help flags`).
std::string flagTable();

// "<tool> <version>" (the version of pyproject.toml).
std::string versionLine(std::string_view tool);

}  // namespace kiln
