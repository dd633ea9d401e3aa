#include "kiln/ir/text_reader.h"

#include <cctype>

namespace kiln {
namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

void TextReader::skipSpace() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
}

bool TextReader::atEnd() {
  skipSpace();
  return pos_ == text_.size();
}

bool TextReader::peek(char c) {
  skipSpace();
  return pos_ < text_.size() && text_[pos_] == c;
}

bool TextReader::accept(char c) {
  if (!peek(c)) return false;
  ++pos_;
  return true;
}

bool TextReader::accept(std::string_view word) {
  skipSpace();
  if (text_.substr(pos_, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

void TextReader::expect(char c) {
  if (!accept(c)) fail(std::string("expected '") + c + "'");
}

void TextReader::expect(std::string_view word) {
  if (!accept(word)) fail("expected '" + std::string(word) + "'");
}

std::string TextReader::quoted() {
  skipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    fail("expected a quoted name");
    return {};
  }
  std::string out;
  for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
    out += text_[pos_];
  }
  if (pos_ == text_.size()) {
    fail("unterminated string");
    return {};
  }
  ++pos_;
  return out;
}

std::string TextReader::identifier() {
  skipSpace();
  if (peek('"')) return quoted();
  size_t start = pos_;
  while (pos_ < text_.size() && (isWordChar(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == '$' ||
                                 text_[pos_] == '-'))
    ++pos_;
  if (start == pos_) fail("expected a name");
  return std::string(text_.substr(start, pos_ - start));
}

std::string TextReader::word() {
  skipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && isWordChar(text_[pos_])) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

int64_t TextReader::integer() {
  skipSpace();
  bool negative = pos_ < text_.size() && text_[pos_] == '-';
  size_t start = pos_ + (negative ? 1 : 0), end = start;
  while (end < text_.size() && isDigit(text_[end])) ++end;
  if (end == start || end - start > 18) {
    fail(end == start ? "expected an integer" : "integer too large");
    return 0;
  }
  int64_t value = 0;
  for (size_t i = start; i < end; ++i) value = value * 10 + (text_[i] - '0');
  pos_ = end;
  return negative ? -value : value;
}

void TextReader::skipBalanced(char open, char close) {
  expect(open);
  for (int depth = 1; !failed() && depth > 0; ++pos_) {
    if (pos_ >= text_.size()) return fail(std::string("unterminated '") + open + "'");
    char c = text_[pos_];
    if (c == '"') {
      for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_)
        if (text_[pos_] == '\\') ++pos_;
      if (pos_ >= text_.size()) return fail("unterminated string");
    } else if (c == open) {
      ++depth;
    } else if (c == close) {
      --depth;
    }
  }
}

void TextReader::fail(std::string message) {
  if (error_.empty()) error_ = message + " at offset " + std::to_string(pos_) + " of '" + std::string(text_) + "'";
  pos_ = text_.size();
}

}  // namespace kiln
