// The lexer of MLIR text: splits a buffer into tokens, each with its byte
// offset so that the parser can turn any token into a file:line:col Location.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "kiln/support/diagnostic.h"

namespace kiln {

enum class Tok {
  Eof,
  Error,      // a character or literal the lexer cannot read; text says which
  BareId,     // func, stablehlo.add, tensor, x, f32, LT
  PercentId,  // %arg0, %0
  CaretId,    // ^bb0
  AtId,       // @main (text includes '@'; @"quoted" keeps the quotes)
  HashId,     // #loc3, #stablehlo, #1 (the result-number suffix of %0#1)
  BangId,     // !stablehlo.token
  Integer,    // 42, 0x7FC00000 (no sign: '-' is its own token)
  Float,      // 1.5, 2.0e-3
  String,     // "text" (text includes the quotes and escapes)
  LParen,
  RParen,
  LSquare,
  RSquare,
  LBrace,
  RBrace,
  Less,
  Greater,
  Comma,
  Colon,
  ColonColon,
  Equal,
  Arrow,
  Question,
  Minus,
  FileMetadataBegin,  // {-# (file metadata, skipped up to its #-})
};

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  size_t pos = 0;  // byte offset in the buffer

  bool is(Tok k) const { return kind == k; }
  bool isKeyword(std::string_view kw) const { return kind == Tok::BareId && text == kw; }
};

class Lexer {
 public:
  explicit Lexer(std::string_view buffer);

  Token next();
  // Restarts lexing at byte offset `pos` (used after raw scans).
  void resetTo(size_t pos) { pos_ = pos; }
  size_t position() const { return pos_; }
  std::string_view buffer() const { return buf_; }

  // 1-based line and column of a byte offset.
  std::pair<unsigned, unsigned> lineCol(size_t pos) const;

 private:
  Token make(Tok kind, size_t start) { return {kind, buf_.substr(start, pos_ - start), start}; }
  void skipWhitespaceAndComments();
  Token lexNumber(size_t start);
  Token lexString(size_t start);
  Token lexPrefixedId(size_t start, Tok kind);

  std::string_view buf_;
  size_t pos_ = 0;
  std::vector<size_t> lineStarts_;
};

// Decodes the body of a string token ("a\n\"b\"\41") into its bytes; false if
// an escape is malformed.
bool unescapeString(std::string_view quoted, std::string& out);

}  // namespace kiln
