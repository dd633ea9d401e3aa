#include "kiln/support/flags.h"

#include <cstdlib>

namespace kiln {

std::vector<std::string> splitFlagWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      inWord = true;
    } else if (quote) {
      if (c == quote) quote = 0; else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(std::move(word));
  return words;
}

// KILN_FLAGS is shared with the Python package; these of its flags mean
// nothing to the command-line tools, which would reject them as unknown.
namespace {
bool isPythonOnlyFlag(std::string_view word) {
  return word == "--explain_recompiles" || word.starts_with("--explain_recompiles=");
}
}  // namespace

std::vector<std::string> argumentsWithEnvFlags(int argc, char** argv) {
  std::vector<std::string> args;
  if (const char* env = std::getenv("KILN_FLAGS"))
    for (std::string& word : splitFlagWords(env))
      if (!isPythonOnlyFlag(word)) args.push_back(std::move(word));
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

}  // namespace kiln
