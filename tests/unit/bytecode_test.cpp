// The StableHLO portable-artifact reader: tiny artifacts jaxlib wrote (see
// scripts/gen_bytecode_fixtures.py) read back as the text jaxlib's own reader
// gives for them; malformed input of every kind is an error, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kiln/ir/printer.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/parse/parser.h"

namespace kiln {
namespace {

struct Fixture {
  const char* name;
  std::vector<unsigned char> bytes;
  const char* text;
  std::string data() const { return std::string(bytes.begin(), bytes.end()); }
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = {
#include "bytecode_fixtures.inc"
  };
  return all;
}

const Fixture& fixture(std::string_view name) {
  for (const Fixture& f : fixtures())
    if (f.name == name) return f;
  throw std::runtime_error("no fixture " + std::string(name));
}

std::string errorOf(const std::string& data) {
  Expected<std::unique_ptr<Module>> m = readBytecode(data, "a.mlirbc");
  return m ? "" : m.status().diag().message;
}

// A copy of `data` with `from` (same length as `to`) replaced by `to`.
std::string patched(std::string data, std::string_view from, std::string_view to) {
  size_t at = data.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return data.replace(at, from.size(), to);
}

TEST(Bytecode, ReadsWhatJaxlibWrote) {
  for (const Fixture& f : fixtures()) {
    SCOPED_TRACE(f.name);
    ASSERT_TRUE(isBytecode(f.data()));
    Expected<std::unique_ptr<Module>> got = readBytecode(f.data(), f.name);
    ASSERT_TRUE(got.isOk()) << got.status().message();
    Expected<std::unique_ptr<Module>> want = parseModule(f.text, "reference.mlir");
    ASSERT_TRUE(want.isOk()) << want.status().message();
    EXPECT_EQ(printModule(**got), printModule(**want));
  }
}

TEST(Bytecode, KeepsJaxSourceLocations) {
  Expected<std::unique_ptr<Module>> m = readBytecode(fixture("add_v1_17").data(), "add.mlirbc");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  Operation& add = *func::body(*(*m)->lookupFunction("main")).front();
  ASSERT_EQ(add.name(), "stablehlo.add");
  EXPECT_EQ(add.debugLoc(), "loc(\"model.py\":3:7)");
  EXPECT_EQ(add.loc().str(), "model.py:3:7");  // diagnostics point at the user's line

  m = readBytecode(fixture("while_v1_17").data(), "while.mlirbc");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  bool found = false;
  (*m)->op().walk([&](Operation& op) {
    if (op.name() != "stablehlo.add") return;
    found = true;
    EXPECT_EQ(op.debugLoc(), "loc(callsite(\"step\"(\"loop.py\":5:9) at \"main\"(\"loop.py\":9:1)))");
    EXPECT_EQ(op.loc().str(), "loop.py:5:9");
  });
  EXPECT_TRUE(found);
}

TEST(Bytecode, ContainerErrors) {
  std::string add = fixture("add_v1_17").data();
  EXPECT_FALSE(isBytecode("module {}"));
  EXPECT_EQ(errorOf("MLiR"), "a.mlirbc: invalid StableHLO bytecode: not MLIR bytecode (bad magic)");
  EXPECT_EQ(errorOf(std::string("ML\xefR\x0f", 5) + add.substr(5)),
            "a.mlirbc: invalid StableHLO bytecode: bytecode version 7 is newer than this reader supports (up to 6)");
  EXPECT_EQ(errorOf(add.substr(0, 30)),
            "a.mlirbc: invalid StableHLO bytecode: a length of 12 runs past the end of the file");
}

TEST(Bytecode, UnknownOpsAndVersionsNameTheOp) {
  std::string add = fixture("add_v1_17").data();
  EXPECT_EQ(errorOf(patched(add, "add_v1", "add_v9")),
            "a.mlirbc: invalid StableHLO bytecode: vhlo.add_v9: version 9 of add is not supported by this reader "
            "(artifact produced by StableHLO_v1.17.0)");
  EXPECT_EQ(errorOf(patched(add, "add_v1", "fft_v3")),
            "a.mlirbc: invalid StableHLO bytecode: vhlo.fft_v3: version 3 of fft is not supported by this reader "
            "(artifact produced by StableHLO_v1.17.0)");
  EXPECT_EQ(errorOf(patched(add, "add_v1", "zzz_v1")),
            "a.mlirbc: invalid StableHLO bytecode: vhlo.zzz_v1 is not supported by this reader (artifact produced "
            "by StableHLO_v1.17.0)");
}

// Untrusted input: every prefix and thousands of corruptions of each fixture
// give an error or a module, never a crash, a hang or a huge allocation.
TEST(Bytecode, TruncatedAndCorruptedInputIsAnError) {
  std::mt19937 rng(23);
  for (const Fixture& f : fixtures()) {
    SCOPED_TRACE(f.name);
    std::string data = f.data();
    for (size_t n = 0; n < data.size(); ++n) EXPECT_FALSE(readBytecode(data.substr(0, n), "t").isOk()) << n;
    for (int i = 0; i < 1500; ++i) {
      std::string bad = data;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < flips; ++k) bad[4 + rng() % (bad.size() - 4)] = static_cast<char>(rng() & 0xff);
      (void)readBytecode(bad, "t");
    }
  }
}

}  // namespace
}  // namespace kiln
