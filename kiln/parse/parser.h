// The StableHLO text front end: reads MLIR text in both the pretty form that
// JAX prints and the generic form.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

struct ParseOptions {
  // Keep ops of unknown dialects (generic form only) as opaque ops.
  bool allowUnregisteredDialect = false;
};

// Parses a whole module. `filename` is used in diagnostics. Text without a
// surrounding `module { ... }` is wrapped in an anonymous module. The result
// is parsed only; run the verifier (kiln/ir/verifier.h) to check it.
//
// What the IR holds: op attributes and dictionaries sorted by name (as MLIR
// keeps them), so both forms of an op give equal attributes; #stablehlo.dot,
// gather, scatter, conv, channel_handle, output_operand_alias and
// result_accuracy structs with every field, absent ones at their defaults;
// each op's `loc(...)` text, aliases resolved, in debugLoc(), and its position
// in the file in loc(). Values must be defined before they are used.
Expected<std::unique_ptr<Module>> parseModule(std::string_view text, std::string_view filename,
                                              const ParseOptions& options = {});

// Parses a standalone attribute, e.g. "dense<[1, 2]> : tensor<2xi32>".
Expected<Attribute> parseAttribute(std::string_view text);
// Parses a standalone type, e.g. "tensor<2x3xf32>".
Expected<Type> parseType(std::string_view text);

// One chunk of a `// -----` split file. `text` is preceded by firstLine - 1
// newlines, so that parsing it reports (and quotes) the line numbers of the
// whole file.
struct SourceChunk {
  std::string text;
  unsigned firstLine;  // 1-based line of the chunk's first line in the file
};
std::vector<SourceChunk> splitInputFile(std::string_view text);

}  // namespace kiln
