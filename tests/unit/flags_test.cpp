// KILN_FLAGS word splitting: what a user types in the environment variable
// becomes the same argument list a shell would give.
#include <gtest/gtest.h>

#include <cstdlib>

#include "kiln/support/flags.h"

namespace kiln {
namespace {

TEST(Flags, SplitsOnWhitespaceAndHonoursQuotes) {
  EXPECT_EQ(splitFlagWords("  --a  --b=1\t--c "), (std::vector<std::string>{"--a", "--b=1", "--c"}));
  EXPECT_EQ(splitFlagWords("--dump-dir='/tmp/my dir' \"x y\""),
            (std::vector<std::string>{"--dump-dir=/tmp/my dir", "x y"}));
  EXPECT_EQ(splitFlagWords("a\\ b ''"), (std::vector<std::string>{"a b", ""}));
  EXPECT_TRUE(splitFlagWords("").empty());
}

TEST(Flags, PythonOnlyEnvironmentFlagsAreNotPassedToTools) {
  setenv("KILN_FLAGS", "--explain_recompiles --pass-timing", 1);
  char arg0[] = "kiln-opt";
  char* argv[] = {arg0};
  EXPECT_EQ(argumentsWithEnvFlags(1, argv), (std::vector<std::string>{"--pass-timing"}));
  unsetenv("KILN_FLAGS");
}

TEST(Flags, EnvironmentWordsComeBeforeArguments) {
  setenv("KILN_FLAGS", "--pass-timing --print-after=all", 1);
  char prog[] = "kiln-opt", file[] = "x.mlir";
  char* argv[] = {prog, file};
  EXPECT_EQ(argumentsWithEnvFlags(2, argv),
            (std::vector<std::string>{"--pass-timing", "--print-after=all", "x.mlir"}));
  unsetenv("KILN_FLAGS");
  EXPECT_EQ(argumentsWithEnvFlags(2, argv), (std::vector<std::string>{"x.mlir"}));
}

}  // namespace
}  // namespace kiln
