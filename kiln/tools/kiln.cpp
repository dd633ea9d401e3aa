// `kiln`: runs StableHLO programs. Subcommands:
//   kiln run FILE ...    run one function on .npy or literal inputs
//   kiln test FILE ...   run the check.* assertions of test files
//   kiln launch -n N -- COMMAND   run N processes of a multi-process run
#include <iostream>

#include "kiln/ir/verifier.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/support/flags.h"
#include "kiln/support/text.h"
#include "kiln/tools/kiln_commands.h"

namespace kiln::tool {

constexpr std::string_view kUsage = R"(usage: kiln <command> [options]

Runs StableHLO programs (MLIR text, as JAX exports them) on kiln.

commands:
  run FILE     run one function on .npy or literal inputs, print or save the results
  test FILE... run every public no-argument function of test files and report
               PASS / FAIL / ERROR for each (check.* assertions)
  launch -n N -- COMMAND [ARGS...]
               start N processes of COMMAND as one multi-process run (e.g.
               kiln run of a program with 2 replicas: instance i in process i,
               collectives over Gloo)
  help [run|test|launch|flags]
               show this help, a command's, or every flag of kiln and what
               reads it

Both run on the cpu back end (native code through LLVM and oneDNN) unless
given --backend interpreter (the reference interpreter).

Run 'kiln <command> --help' for the options of a command, 'kiln --version'
for the version. The words of the KILN_FLAGS environment variable are read
as options of the command, before those on the command line; a command skips
those that belong to other parts of kiln ('kiln help flags' lists them).
)";

void printCommandHelp(FlagReader reader, std::string_view usage, std::string_view footer) {
  std::cout << usage << "\n" << flagHelp(reader) << (footer.empty() ? "" : "\n") << footer;
}

std::optional<int> helpOrVersion(const ParsedFlags& flags, void (*printHelp)()) {
  const FlagValue* help = flags.last("--help");
  const FlagValue* version = flags.last("--version");
  if (help && help->on()) printHelp();
  else if (version && version->on()) std::cout << versionLine("kiln") << "\n";
  else return std::nullopt;
  return kExitSuccess;
}

int usageError(std::string_view command, std::string_view message) {
  std::cerr << "kiln " << command << ": error: " << message << "\n"
            << "run 'kiln " << command << " --help' for usage\n";
  return kExitUsage;
}

Expected<std::unique_ptr<Module>> loadModule(std::string_view text, std::string_view filename) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseProgram(text, filename));
  KILN_RETURN_IF_ERROR(verifyModule(*module));
  return module;
}

std::string oneLine(const Diagnostic& diag) {
  std::string text = escapeNonPrintable(diag.loc.known() ? diag.loc.str() + ": " + diag.message : diag.message);
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace kiln::tool

int main(int argc, char** argv) {
  using namespace kiln::tool;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::string_view command = args[0];
  std::span<const std::string> rest = std::span(args).subspan(1);
  if (command == "run") return runCommand(rest);
  if (command == "test") return testCommand(rest);
  if (command == "launch") return launchCommand(rest);
  if (command == "--version") {
    std::cout << kiln::versionLine("kiln") << "\n";
    return kExitSuccess;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::string_view topic = rest.empty() ? "" : std::string_view(rest[0]);
    if (topic.empty()) std::cout << kUsage;
    else if (topic == "run") printRunHelp();
    else if (topic == "test") printTestHelp();
    else if (topic == "launch") printLaunchHelp();
    else if (topic == "flags") std::cout << kiln::flagTable();
    else {
      std::cerr << "kiln help: error: no help on '" << topic << "' (topics: run, test, launch, flags)\n";
      return kExitUsage;
    }
    return kExitSuccess;
  }
  std::cerr << "kiln: error: unknown command '" << command << "'\n\n" << kUsage;
  return kExitUsage;
}
