// Printing text that came from outside (a file given to a tool) safely.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln {

// `text` with control characters (but '\n' and '\t') and bytes that are
// not valid UTF-8 written as \xNN, so that printing it cannot garble a
// terminal (a binary file's bytes in a diagnostic).
std::string escapeNonPrintable(std::string_view text);

// The length of the valid UTF-8 sequence at text[i] (1 for ASCII), or 0 if
// there is none; `truncated` is set when it may go on past the end of `text`.
size_t utf8SequenceLength(std::string_view text, size_t i, bool* truncated = nullptr);

}  // namespace kiln
