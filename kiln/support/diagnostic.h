// Source locations, diagnostics and errors-as-values.
//
// kiln never throws across a library boundary and never aborts on user input:
// a fallible function returns `Status` (success or a Diagnostic) or
// `Expected<T>` (a T or a Diagnostic).
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kiln {

// A position in a source buffer. `file` points at a string interned by
// `internFileName`, so Locations are cheap to copy and compare.
struct Location {
  const std::string* file = nullptr;
  unsigned line = 0;  // 1-based; 0 = unknown
  unsigned col = 0;   // 1-based

  bool known() const { return file != nullptr && line != 0; }
  std::string str() const;  // "file:line:col" or "<unknown>"
  static Location unknown() { return {}; }
};

const std::string* internFileName(std::string_view name);

// What kind of failure an error is, as the runtime API reports it (the
// codes of PJRT's errors). Most errors are about the user's input.
enum class ErrorCode { InvalidArgument, NotFound, FailedPrecondition, Unimplemented, ResourceExhausted, Internal };
const char* errorCodeName(ErrorCode code);  // "INVALID_ARGUMENT", ...

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity = Severity::Error;
  ErrorCode code = ErrorCode::InvalidArgument;
  Location loc;
  std::string message;
  std::vector<Diagnostic> notes;
  // Text of the source line and caret, filled in when the source is known.
  std::string snippet;

  // "file:line:col: error: message" followed by snippet and notes.
  std::string str() const;
};

// Registers the text of a source file so diagnostics can quote the line.
void registerSourceText(const std::string* file, std::shared_ptr<const std::string> text);
// Returns "  <line text>\n  ^" for `loc`, or "" when the text is unknown.
std::string sourceSnippet(Location loc);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Diagnostic d) : diag_(std::make_unique<Diagnostic>(std::move(d))) {}
  static Status ok() { return Status(); }

  bool isOk() const { return diag_ == nullptr; }
  explicit operator bool() const { return isOk(); }
  const Diagnostic& diag() const { assert(diag_); return *diag_; }
  Diagnostic& diag() { assert(diag_); return *diag_; }
  std::string message() const { return diag_ ? diag_->str() : std::string("ok"); }
  ErrorCode code() const { assert(diag_); return diag_->code; }

 private:
  std::unique_ptr<Diagnostic> diag_;
};

Status error(Location loc, std::string message);
inline Status error(std::string message) { return error(Location::unknown(), std::move(message)); }
Status error(ErrorCode code, std::string message);

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Status s) : v_(std::move(s)) { assert(!std::get<Status>(v_).isOk()); }
  Expected(Diagnostic d) : v_(Status(std::move(d))) {}

  bool isOk() const { return v_.index() == 0; }
  explicit operator bool() const { return isOk(); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  Status takeStatus() { return std::move(std::get<1>(v_)); }
  const Status& status() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

// Propagate a failed Status/Expected to the caller.
#define KILN_RETURN_IF_ERROR(expr)                    \
  do {                                                \
    ::kiln::Status kiln_status_ = (expr);             \
    if (!kiln_status_.isOk()) return kiln_status_;    \
  } while (0)

#define KILN_CONCAT_INNER(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_INNER(a, b)
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL(KILN_CONCAT(kiln_expected_, __LINE__), lhs, expr)
#define KILN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.isOk()) return tmp.takeStatus();        \
  lhs = std::move(*tmp)

}  // namespace kiln
