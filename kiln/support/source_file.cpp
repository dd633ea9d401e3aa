#include "kiln/support/source_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "kiln/support/text.h"

namespace kiln {
namespace {

constexpr std::string_view kMlirBytecodeMagic = "ML\xefR";
// Bytecode is read whole; this bounds what an endless stream can take.
constexpr size_t kMaxBytecodeBytes = size_t{1} << 30;

// Where byte `offset` of `text` is (columns count bytes, as the parser's do).
Location locationOf(const std::string& name, std::string_view text, size_t offset) {
  size_t lineStart = offset == 0 ? 0 : text.rfind('\n', offset - 1);
  lineStart = lineStart == std::string_view::npos || offset == 0 ? 0 : lineStart + 1;
  unsigned line = 1 + std::count(text.begin(), text.begin() + lineStart, '\n');
  return {internFileName(name), line, unsigned(offset - lineStart + 1)};
}

}  // namespace

std::string sourceDisplayName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

Expected<std::string> readSourceText(const std::string& path) {
  std::string name = sourceDisplayName(path);
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) return error("'" + path + "' is a directory");
  std::unique_ptr<FILE, int (*)(FILE*)> file(path == "-" ? stdin : std::fopen(path.c_str(), "rb"),
                                             path == "-" ? [](FILE*) { return 0; } : &std::fclose);
  if (!file) return error("cannot open '" + path + "': " + std::strerror(errno));
  std::string text;
  size_t checked = 0;  // text[0, checked) is known to be text
  char buffer[1 << 16];
  while (true) {
    size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    text.append(buffer, n);
    bool atEnd = n < sizeof buffer;
    if (atEnd && std::ferror(file.get())) return error("cannot read '" + path + "': " + std::strerror(errno));
    // Bytecode (a StableHLO portable artifact) is returned as read; the
    // tools hand it to the bytecode reader.
    if (text.starts_with(kMlirBytecodeMagic)) {
      if (atEnd) return text;
      if (text.size() > kMaxBytecodeBytes) return error(name + " is MLIR bytecode larger than 1 GiB");
      continue;
    }
    // Checked as it arrives, so that reading stops at the first bad byte.
    while (checked < text.size()) {
      bool truncated;
      size_t len = utf8SequenceLength(text, checked, &truncated);
      if (truncated && !atEnd) break;  // the rest of the character is in the next block
      if (len == 0 || text[checked] == '\0') {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[checked]));
        return error(locationOf(name, text, checked), std::string("not a text file (byte ") + hex +
                                                          " is not UTF-8 text); kiln reads StableHLO as MLIR text");
      }
      checked += len;
    }
    if (atEnd) return text;
  }
}

}  // namespace kiln
