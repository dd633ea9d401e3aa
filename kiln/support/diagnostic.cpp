#include "kiln/support/diagnostic.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "kiln/support/text.h"

namespace kiln {
namespace {
std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}
std::map<const std::string*, std::shared_ptr<const std::string>>& sourceTexts() {
  static std::map<const std::string*, std::shared_ptr<const std::string>> texts;
  return texts;
}
// The bytes at text[i] that print as they are: a UTF-8 character that is
// not a control character (tab and newline are kept); 0 for a byte to escape.
size_t printableLength(std::string_view text, size_t i) {
  unsigned char b = static_cast<unsigned char>(text[i]);
  if (b < 0x20) return b == '\t' || b == '\n';
  return b == 0x7f ? 0 : utf8SequenceLength(text, i);
}
}  // namespace

const std::string* internFileName(std::string_view name) {
  static std::set<std::string, std::less<>> names;
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = names.find(name);
  if (it == names.end()) it = names.emplace(name).first;
  return &*it;
}

std::string Location::str() const {
  if (!known()) return "<unknown>";
  return *file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

void registerSourceText(const std::string* file, std::shared_ptr<const std::string> text) {
  std::lock_guard<std::mutex> lock(registryMutex());
  sourceTexts()[file] = std::move(text);
}

std::string sourceSnippet(Location loc) {
  if (!loc.known()) return "";
  std::shared_ptr<const std::string> text;
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    auto it = sourceTexts().find(loc.file);
    if (it == sourceTexts().end()) return "";
    text = it->second;
  }
  size_t pos = 0;
  for (unsigned l = 1; l < loc.line; ++l) {
    pos = text->find('\n', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  size_t end = text->find('\n', pos);
  std::string_view line = std::string_view(*text).substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (line.ends_with('\r')) line.remove_suffix(1);
  // The caret goes under byte col-1 of the line as printed: an escaped byte
  // takes four columns, a multi-byte UTF-8 character one, a tab stays a tab.
  std::string caret;
  for (size_t i = 0; i + 1 < loc.col && i < line.size();) {
    size_t n = printableLength(line, i);
    caret += line[i] == '\t' ? "\t" : n ? " " : "    ";
    i += std::max<size_t>(n, 1);
  }
  if (loc.col > line.size() + 1) caret += std::string(loc.col - 1 - line.size(), ' ');
  return "  " + escapeNonPrintable(line) + "\n  " + caret + "^";
}

size_t utf8SequenceLength(std::string_view text, size_t i, bool* truncated) {
  if (truncated) *truncated = false;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b = byte(i);
  if (b < 0x80) return 1;
  // The lead byte gives the length and the range of the second byte, which
  // rules out overlong forms, surrogates and code points past U+10FFFF.
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) n = 3, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
  else if (b >= 0xf0 && b <= 0xf4) n = 4, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= text.size()) {
      if (truncated) *truncated = true;
      return 0;
    }
    unsigned char c = byte(i + k);
    if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xbf)) return 0;
  }
  return n;
}

std::string escapeNonPrintable(std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (size_t n = printableLength(text, i)) {
      out += text.substr(i, n);
      i += n;
    } else {
      unsigned char b = static_cast<unsigned char>(text[i++]);
      out += {'\\', 'x', kHex[b >> 4], kHex[b & 15]};
    }
  }
  return out;
}

std::string Diagnostic::str() const {
  const char* sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
  std::string out = loc.known() ? loc.str() + ": " : std::string();
  out += std::string(sev) + ": " + escapeNonPrintable(message);
  std::string snip = snippet.empty() ? sourceSnippet(loc) : snippet;
  if (!snip.empty()) out += "\n" + snip;
  for (const Diagnostic& n : notes) out += "\n" + n.str();
  return out;
}

Status error(Location loc, std::string message) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(message);
  return Status(std::move(d));
}

Status error(ErrorCode code, std::string message) {
  Diagnostic d;
  d.code = code;
  d.message = std::move(message);
  return Status(std::move(d));
}

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::NotFound: return "NOT_FOUND";
    case ErrorCode::FailedPrecondition: return "FAILED_PRECONDITION";
    case ErrorCode::Unimplemented: return "UNIMPLEMENTED";
    case ErrorCode::ResourceExhausted: return "RESOURCE_EXHAUSTED";
    case ErrorCode::Internal: return "INTERNAL";
  }
  return "UNKNOWN";
}

}  // namespace kiln
