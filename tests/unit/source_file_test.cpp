// Program text given to the tools: binary files are refused with a place,
// and diagnostics never print raw non-printable bytes.
#include <gtest/gtest.h>

#include <fstream>

#include "kiln/support/source_file.h"
#include "kiln/support/text.h"

namespace kiln {
namespace {

std::string writeTemp(const std::string& name, const std::string& bytes) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string readError(const std::string& path) {
  Expected<std::string> text = readSourceText(path);
  return text.isOk() ? "no error" : text.status().diag().str();
}

TEST(SourceFile, ReadsUtf8Text) {
  std::string text = "// caf\xc3\xa9 \xe2\x88\x9a\n\tfunc.func @f()\n";
  Expected<std::string> read = readSourceText(writeTemp("utf8.mlir", text));
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(*read, text);
}

TEST(SourceFile, RefusesWhatIsNotText) {
  std::string dir = testing::TempDir();
  EXPECT_EQ(readError(dir), "error: '" + dir + "' is a directory");
  std::string nul = writeTemp("nul.mlir", std::string("func\nab\0c", 9));
  EXPECT_EQ(readError(nul),
            nul + ":2:3: error: not a text file (byte 0x00 is not UTF-8 text); kiln reads StableHLO as MLIR text");
  std::string latin1 = writeTemp("latin1.mlir", "// caf\xe9\n");
  EXPECT_EQ(readError(latin1),
            latin1 + ":1:7: error: not a text file (byte 0xe9 is not UTF-8 text); kiln reads StableHLO as MLIR text");
  // An endless device fails at its first byte instead of being read whole.
  EXPECT_EQ(readError("/dev/zero"),
            "/dev/zero:1:1: error: not a text file (byte 0x00 is not UTF-8 text); kiln reads StableHLO as MLIR text");
}

// Bytecode (a portable artifact) is returned whole, NUL bytes and all, for
// the bytecode reader.
TEST(SourceFile, ReturnsBytecodeAsRead) {
  std::string bytes("ML\xefR\x0dStableHLO_v1.0.0\0\xff", 23);
  Expected<std::string> read = readSourceText(writeTemp("f.mlirbc", bytes));
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(*read, bytes);
}

TEST(SourceFile, EscapesNonPrintableBytes) {
  EXPECT_EQ(escapeNonPrintable("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(escapeNonPrintable("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(escapeNonPrintable(std::string("\x93NUMPY\x01\0\x1b[31m\x7f", 14)), "\\x93NUMPY\\x01\\x00\\x1b[31m\\x7f");
  EXPECT_EQ(escapeNonPrintable("\xc3"), "\\xc3");  // a character cut short
}

// The snippet under a diagnostic shows escaped bytes, and its caret still
// points at the byte the location names.
TEST(SourceFile, SnippetEscapesBytesAndKeepsTheCaretInPlace) {
  const std::string* file = internFileName("snippet.mlir");
  registerSourceText(file, std::make_shared<std::string>("ok\n\x01\xff" "\xc3\xa9x = 1\r\n"));
  // Two escaped bytes of four columns and one two-byte character before 'x'.
  EXPECT_EQ(sourceSnippet({file, 2, 5}), "  \\x01\\xff\xc3\xa9x = 1\n" + std::string(2 + 9, ' ') + "^");
  EXPECT_EQ(sourceSnippet({file, 1, 2}), "  ok\n   ^");
}

}  // namespace
}  // namespace kiln
