// libFuzzer harness: StableHLO text through the parser, the verifier and the
// printer. Any input must give a module or an error, never a crash, hang or
// huge allocation; a module that verifies must print, and its print must
// parse and verify again and print the same (the printer and the parser
// agree). Built by scripts/fuzz.sh.
#include <cstdint>
#include <string_view>

#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "tests/fuzz/print_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = kiln::parseModule(text, "<fuzz>");
  if (!module || !kiln::verifyModule(**module).isOk()) return 0;
  kiln::fuzz::checkPrintReadsBack(**module);
  return 0;
}
