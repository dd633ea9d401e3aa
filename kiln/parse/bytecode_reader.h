// The StableHLO portable-artifact front end: reads MLIR bytecode carrying the
// VHLO dialect (what `jax.export` serializes and what JAX hands a PJRT
// plugin) without MLIR. VHLO ops, types and attributes are turned into their
// StableHLO forms as StableHLO's VHLO-to-StableHLO legalization does; the
// result is the same IR that parsing the text form gives.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

// Whether `data` starts with the MLIR bytecode magic "ML\xefR".
bool isBytecode(std::string_view data);

// Reads a portable artifact. `filename` names it in diagnostics. The input is
// untrusted: malformed bytecode is an error, never a crash, and no
// allocation exceeds what the input's size can justify.
Expected<std::unique_ptr<Module>> readBytecode(std::string_view data, std::string_view filename);

// A program given as StableHLO text or as a portable artifact (told apart by
// the bytecode magic): readBytecode or parseModule.
Expected<std::unique_ptr<Module>> parseProgram(std::string_view textOrBytecode, std::string_view filename);

// The artifact as StableHLO in MLIR's generic text form (what readBytecode
// parses); for debugging and tests.
Expected<std::string> bytecodeToText(std::string_view data, std::string_view filename);

}  // namespace kiln
