// The check the text and verifier harnesses share: a module that verifies
// prints to text that reads back, verifies, and prints the same again.
// A failure aborts (libFuzzer keeps the input).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"

namespace kiln::fuzz {

inline void checkPrintReadsBack(const Module& module) {
  std::string printed = printModule(module);
  auto again = parseModule(printed, "<printed>");
  if (!again || !verifyModule(**again).isOk()) {
    std::fprintf(stderr, "the print of a module that verifies does not read back:\n%s\n%s\n", printed.c_str(),
                 again ? verifyModule(**again).message().c_str() : again.status().message().c_str());
    std::abort();
  }
  if (printModule(**again) != printed) {
    std::fprintf(stderr, "printing is not a fixed point:\n%s\n", printed.c_str());
    std::abort();
  }
}

}  // namespace kiln::fuzz
