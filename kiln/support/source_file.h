// Reading the program text the tools are given.
#pragma once

#include <string>
#include <string_view>

#include "kiln/support/diagnostic.h"

namespace kiln {

// The text of `path`, or of stdin for "-". MLIR bytecode (a file starting
// with "ML\xefR", a StableHLO portable artifact) is returned as it is, for
// readBytecode (kiln/parse/bytecode_reader.h). A directory, a file that
// cannot be read, and any other file that is not text (a NUL byte or invalid
// UTF-8) are errors; reading stops at the first byte that is not
// text, so /dev/zero fails at once instead of filling memory. Errors about
// the contents name their place: "file:line:col: ...".
Expected<std::string> readSourceText(const std::string& path);

// The name diagnostics use for `path`: "<stdin>" for "-".
std::string sourceDisplayName(const std::string& path);

}  // namespace kiln
