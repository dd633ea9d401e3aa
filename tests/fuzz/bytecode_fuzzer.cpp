// libFuzzer harness: StableHLO portable artifacts (MLIR bytecode with VHLO)
// through the reader (kiln/parse/bytecode_reader.h) and the verifier. Any
// input must give a module or an error, never a crash, hang or huge
// allocation. Seed it with the fixtures of scripts/gen_bytecode_fixtures.py
// (scripts/fuzz.sh does). Built by scripts/fuzz.sh.
#include <cstdint>
#include <string>
#include <string_view>

#include "kiln/ir/verifier.h"
#include "kiln/parse/bytecode_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The magic bytes first, so that every input exercises the reader.
  std::string bytes = "ML\xefR";
  bytes.append(reinterpret_cast<const char*>(data), size);
  auto module = kiln::parseProgram(bytes, "<fuzz>");
  if (module) (void)kiln::verifyModule(**module);
  return 0;
}
