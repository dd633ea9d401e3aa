// The subcommands of the `kiln` tool and what they share.
#pragma once

#include <initializer_list>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"
#include "kiln/support/flags.h"
#include "kiln/support/source_file.h"

namespace kiln::tool {

// Each returns the process exit status: 0 success, 1 failure, 2 bad usage.
int runCommand(std::span<const std::string> args);   // kiln_run.cpp
int testCommand(std::span<const std::string> args);  // kiln_test.cpp
int launchCommand(std::span<const std::string> args);  // kiln_launch.cpp

constexpr int kExitSuccess = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// A command's flags are those of the registry (kiln/support/flags.cpp) that
// apply to it, read by parseFlags from $KILN_FLAGS and then its arguments.

// Prints `usage` (the text before the options), the options `reader` reads,
// then `footer`.
void printCommandHelp(FlagReader reader, std::string_view usage, std::string_view footer = "");
void printRunHelp();   // kiln_run.cpp
void printTestHelp();  // kiln_test.cpp
void printLaunchHelp();  // kiln_launch.cpp

// For --help: prints the help and returns kExitSuccess; for --version the
// version. Otherwise nothing.
std::optional<int> helpOrVersion(const ParsedFlags& flags, void (*printHelp)());

// Prints "kiln <command>: error: <message>" and a pointer to --help; returns kExitUsage.
int usageError(std::string_view command, std::string_view message);

// Parses and verifies `text`, StableHLO text or a portable artifact
// (diagnostics name `filename`).
Expected<std::unique_ptr<Module>> loadModule(std::string_view text, std::string_view filename);

// A diagnostic on one line: "file:line:col: message" (notes and the source
// snippet left out).
std::string oneLine(const Diagnostic& diag);

}  // namespace kiln::tool
