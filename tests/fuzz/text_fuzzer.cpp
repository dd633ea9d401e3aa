// libFuzzer harness: StableHLO text through the parser, the verifier and the
// printer. Any input must give a module or an error, never a crash, hang or
// huge allocation; a module that verifies must print, and its print must
// parse and verify again and print the same (the printer and the parser
// agree). Built by scripts/fuzz.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = kiln::parseModule(text, "<fuzz>");
  if (!module || !kiln::verifyModule(**module).isOk()) return 0;
  std::string printed = kiln::printModule(**module);
  auto again = kiln::parseModule(printed, "<printed>");
  if (!again || !kiln::verifyModule(**again).isOk()) {
    std::fprintf(stderr, "the print of a valid module does not read back:\n%s\n%s\n", printed.c_str(),
                 again ? kiln::verifyModule(**again).message().c_str() : again.status().message().c_str());
    std::abort();
  }
  if (kiln::printModule(**again) != printed) {
    std::fprintf(stderr, "printing is not a fixed point:\n%s\n", printed.c_str());
    std::abort();
  }
  return 0;
}
