// A small recursive-descent reader over attribute text: Shardy's `#sdy.*`
// attributes (sharding.cpp) and GSPMD's `mhlo.sharding` strings
// (gspmd_sharding.cpp). The first error wins and ends the text, so a caller
// reads on and checks failed() once at the end. Never throws, whatever the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

class TextReader {
 public:
  explicit TextReader(std::string_view text) : text_(text) {}

  bool atEnd();
  bool peek(char c);
  bool accept(char c);
  bool accept(std::string_view word);
  void expect(char c);
  void expect(std::string_view word);
  // `"name"`, with `\` escaping the next character.
  std::string quoted();
  // A bare name (letters, digits, `_ . $ -`) or a quoted one.
  std::string identifier();
  // Letters, digits and `_`; empty when there are none.
  std::string word();
  // An optional `-` and at most 18 digits.
  int64_t integer();
  // Skips `open ... close` with what it nests, quoted strings included.
  void skipBalanced(char open, char close);

  void fail(std::string message);
  bool failed() const { return !error_.empty(); }
  // "<message> at offset N of '<text>'".
  const std::string& errorMessage() const { return error_; }

 private:
  void skipSpace();

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace kiln
