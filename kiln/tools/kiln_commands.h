// The subcommands of the `kiln` tool and what they share.
#pragma once

#include <initializer_list>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::tool {

// Each returns the process exit status: 0 success, 1 failure, 2 bad usage.
int runCommand(std::span<const std::string> args);   // kiln_run.cpp
int testCommand(std::span<const std::string> args);  // kiln_test.cpp

constexpr int kExitSuccess = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Walks a subcommand's arguments: options written `--name value` or
// `--name=value`, flags `--name`, and positional arguments.
class ArgCursor {
 public:
  explicit ArgCursor(std::span<const std::string> args) : args_(args) {}

  bool done() const { return pos_ >= args_.size() || !error_.isOk(); }
  // If the current argument is option `name`, consumes it and stores its
  // value; a missing value is recorded as an error.
  bool option(std::string_view name, std::string& value);
  // If the current argument is flag `name`, consumes it.
  bool flag(std::string_view name);
  // Consumes a positional argument; an unknown `--option` is an error.
  bool positional(std::string& value);
  // The first error met (an unknown option, a missing value), or ok.
  const Status& error() const { return error_; }

 private:
  std::span<const std::string> args_;
  size_t pos_ = 0;
  Status error_;
};

// Prints "kiln <command>: error: <message>" and a pointer to --help; returns kExitUsage.
int usageError(std::string_view command, std::string_view message);

// The only back end so far; an error naming the known ones for any other.
// Checks `backend` against the back ends a command offers.
Status checkBackend(std::string_view backend, std::initializer_list<std::string_view> available);

Expected<std::string> readTextFile(const std::string& path);

// Parses and verifies `text` (diagnostics name `filename`).
Expected<std::unique_ptr<Module>> loadModule(std::string_view text, std::string_view filename);

// A diagnostic on one line: "file:line:col: message" (notes and the source
// snippet left out).
std::string oneLine(const Diagnostic& diag);

}  // namespace kiln::tool
