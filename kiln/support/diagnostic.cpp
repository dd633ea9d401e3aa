#include "kiln/support/diagnostic.h"

#include <map>
#include <mutex>
#include <set>

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
  std::string line = text->substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  std::string caret(loc.col > 0 ? loc.col - 1 : 0, ' ');
  for (size_t i = 0; i < caret.size() && i < line.size(); ++i)
    if (line[i] == '\t') caret[i] = '\t';
  return "  " + line + "\n  " + caret + "^";
}

std::string Diagnostic::str() const {
  const char* sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
  std::string out = loc.known() ? loc.str() + ": " : std::string();
  out += std::string(sev) + ": " + message;
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
