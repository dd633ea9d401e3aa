// Command-line flags shared by every entry point.
//
// KILN_FLAGS works like XLA_FLAGS: its whitespace-separated words (quotes
// group words) are read as if they were given on the command line, before
// the real arguments, so an explicit argument wins over the environment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// Splits `text` into words; '...' and "..." group, backslash escapes.
std::vector<std::string> splitFlagWords(std::string_view text);

// argv[1..] with the words of $KILN_FLAGS inserted in front.
std::vector<std::string> argumentsWithEnvFlags(int argc, char** argv);

}  // namespace kiln
