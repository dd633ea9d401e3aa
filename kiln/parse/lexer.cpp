#include "kiln/parse/lexer.h"

#include <algorithm>

namespace kiln {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Characters of MLIR's bare-id after the first: letter | digit | [_$.]
bool isBareIdChar(char c) { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.'; }
// Characters of MLIR's suffix-id (after %, ^, #, !, @): letter | digit | [$._-]
bool isSuffixIdChar(char c) { return isBareIdChar(c) || c == '-'; }

int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

Lexer::Lexer(std::string_view buffer) : buf_(buffer) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < buf_.size(); ++i)
    if (buf_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::pair<unsigned, unsigned> Lexer::lineCol(size_t pos) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), pos);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());  // 1-based
  return {static_cast<unsigned>(line), static_cast<unsigned>(pos - lineStarts_[line - 1] + 1)};
}

void Lexer::skipWhitespaceAndComments() {
  while (pos_ < buf_.size()) {
    char c = buf_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < buf_.size() && buf_[pos_ + 1] == '/') {
      while (pos_ < buf_.size() && buf_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skipWhitespaceAndComments();
  size_t start = pos_;
  if (pos_ >= buf_.size()) return make(Tok::Eof, start);
  char c = buf_[pos_++];
  auto peekIs = [&](char x) { return pos_ < buf_.size() && buf_[pos_] == x; };
  switch (c) {
    case '(': return make(Tok::LParen, start);
    case ')': return make(Tok::RParen, start);
    case '[': return make(Tok::LSquare, start);
    case ']': return make(Tok::RSquare, start);
    case '}': return make(Tok::RBrace, start);
    case '<': return make(Tok::Less, start);
    case '>': return make(Tok::Greater, start);
    case ',': return make(Tok::Comma, start);
    case '=': return make(Tok::Equal, start);
    case '?': return make(Tok::Question, start);
    case '{':
      if (buf_.substr(pos_, 2) == "-#") {
        pos_ += 2;
        return make(Tok::FileMetadataBegin, start);
      }
      return make(Tok::LBrace, start);
    case ':':
      if (peekIs(':')) {
        ++pos_;
        return make(Tok::ColonColon, start);
      }
      return make(Tok::Colon, start);
    case '-':
      if (peekIs('>')) {
        ++pos_;
        return make(Tok::Arrow, start);
      }
      return make(Tok::Minus, start);
    case '"': return lexString(start);
    case '%': return lexPrefixedId(start, Tok::PercentId);
    case '^': return lexPrefixedId(start, Tok::CaretId);
    case '!': return lexPrefixedId(start, Tok::BangId);
    case '#': return lexPrefixedId(start, Tok::HashId);
    case '@':
      if (peekIs('"')) {
        Token s = lexString(pos_++);
        if (s.is(Tok::Error)) return s;
        return make(Tok::AtId, start);
      }
      return lexPrefixedId(start, Tok::AtId);
    default: break;
  }
  if (isDigit(c)) return lexNumber(start);
  if (isLetter(c) || c == '_') {
    while (pos_ < buf_.size() && isBareIdChar(buf_[pos_])) ++pos_;
    return make(Tok::BareId, start);
  }
  return make(Tok::Error, start);
}

Token Lexer::lexNumber(size_t start) {
  if (buf_[start] == '0' && pos_ < buf_.size() && buf_[pos_] == 'x' && pos_ + 1 < buf_.size() &&
      isHexDigit(buf_[pos_ + 1])) {
    ++pos_;
    while (pos_ < buf_.size() && isHexDigit(buf_[pos_])) ++pos_;
    return make(Tok::Integer, start);
  }
  while (pos_ < buf_.size() && isDigit(buf_[pos_])) ++pos_;
  if (pos_ >= buf_.size() || buf_[pos_] != '.') return make(Tok::Integer, start);
  ++pos_;
  while (pos_ < buf_.size() && isDigit(buf_[pos_])) ++pos_;
  if (pos_ < buf_.size() && (buf_[pos_] == 'e' || buf_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < buf_.size() && (buf_[p] == '+' || buf_[p] == '-')) ++p;
    if (p < buf_.size() && isDigit(buf_[p])) {
      pos_ = p;
      while (pos_ < buf_.size() && isDigit(buf_[pos_])) ++pos_;
    }
  }
  return make(Tok::Float, start);
}

Token Lexer::lexString(size_t start) {
  // `start` is the opening quote; pos_ is just past it.
  while (pos_ < buf_.size()) {
    char c = buf_[pos_++];
    if (c == '"') return make(Tok::String, start);
    if (c == '\n') break;
    if (c == '\\' && pos_ < buf_.size()) ++pos_;
  }
  pos_ = start + 1;
  return make(Tok::Error, start);
}

Token Lexer::lexPrefixedId(size_t start, Tok kind) {
  size_t bodyStart = pos_;
  while (pos_ < buf_.size() && isSuffixIdChar(buf_[pos_])) ++pos_;
  if (pos_ == bodyStart) return make(Tok::Error, start);
  return make(kind, start);
}

bool unescapeString(std::string_view quoted, std::string& out) {
  out.clear();
  std::string_view s = quoted.substr(1, quoted.size() - 2);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i >= s.size()) return false;
    switch (s[i]) {
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      default:
        if (i + 1 >= s.size() || !isHexDigit(s[i]) || !isHexDigit(s[i + 1])) return false;
        out += static_cast<char>(hexValue(s[i]) * 16 + hexValue(s[i + 1]));
        ++i;
    }
  }
  return true;
}

}  // namespace kiln
