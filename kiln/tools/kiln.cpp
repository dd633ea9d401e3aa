// `kiln`: runs StableHLO programs. Subcommands:
//   kiln run FILE ...    run one function on .npy or literal inputs
//   kiln test FILE ...   run the check.* assertions of test files
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/support/flags.h"
#include "kiln/tools/kiln_commands.h"

namespace kiln::tool {

constexpr std::string_view kUsage = R"(usage: kiln <command> [options]

Runs StableHLO programs (MLIR text, as JAX exports them) on kiln.

commands:
  run FILE     run one function on .npy or literal inputs, print or save the results
  test FILE... run every public no-argument function of test files and report
               PASS / FAIL / ERROR for each (check.* assertions)
  help         show this help

Both run on the cpu back end (native code through LLVM and oneDNN) unless
given --backend interpreter (the reference interpreter).

Run 'kiln <command> --help' for the options of a command. The words of the
KILN_FLAGS environment variable are read as options of the command, before
those on the command line.
)";

bool ArgCursor::option(std::string_view name, std::string& value) {
  if (done()) return false;
  const std::string& arg = args_[pos_];
  if (!arg.starts_with(name)) return false;
  std::string_view rest = std::string_view(arg).substr(name.size());
  if (rest.starts_with("=")) {
    value = std::string(rest.substr(1));
    ++pos_;
    return true;
  }
  if (!rest.empty()) return false;  // a longer option that shares the prefix
  if (pos_ + 1 >= args_.size()) {
    error_ = kiln::error("option " + std::string(name) + " needs a value");
    return false;
  }
  value = args_[pos_ + 1];
  pos_ += 2;
  return true;
}

bool ArgCursor::flag(std::string_view name) {
  if (done() || args_[pos_] != name) return false;
  ++pos_;
  return true;
}

bool ArgCursor::positional(std::string& value) {
  if (done()) return false;
  const std::string& arg = args_[pos_];
  if (arg.starts_with("-") && arg != "-") {
    error_ = kiln::error("unknown option '" + arg + "'");
    return false;
  }
  value = arg;
  ++pos_;
  return true;
}

int usageError(std::string_view command, std::string_view message) {
  std::cerr << "kiln " << command << ": error: " << message << "\n"
            << "run 'kiln " << command << " --help' for usage\n";
  return kExitUsage;
}

Status checkBackend(std::string_view backend, std::initializer_list<std::string_view> available) {
  std::string names;
  for (std::string_view name : available) {
    if (name == backend) return Status::ok();
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return error("unknown backend '" + std::string(backend) + "' (available: " + names + ")");
}

Expected<std::string> readTextFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return error("'" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return error("cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return error("cannot read '" + path + "'");
  return text.str();
}

Expected<std::unique_ptr<Module>> loadModule(std::string_view text, std::string_view filename) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseModule(text, filename));
  KILN_RETURN_IF_ERROR(verifyModule(*module));
  return module;
}

std::string oneLine(const Diagnostic& diag) {
  std::string text = diag.loc.known() ? diag.loc.str() + ": " + diag.message : diag.message;
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace kiln::tool

int main(int argc, char** argv) {
  using namespace kiln::tool;
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::string_view command = argv[1];
  // The command's own arguments, with the words of $KILN_FLAGS in front.
  std::vector<std::string> args = kiln::argumentsWithEnvFlags(argc - 1, argv + 1);
  if (command == "run") return runCommand(args);
  if (command == "test") return testCommand(args);
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitSuccess;
  }
  std::cerr << "kiln: error: unknown command '" << command << "'\n\n" << kUsage;
  return kExitUsage;
}
