// The flag registry and KILN_FLAGS: what a user types in the environment
// variable becomes the same argument list a shell would give; every reader
// takes its own flags from it and skips those of the others.
#include <gtest/gtest.h>

#include "kiln/support/flags.h"

namespace kiln {
namespace {

constexpr FlagReader kReaders[] = {kKilnOpt, kKilnRun, kKilnTest, kRuntime, kPython, kKilnLaunch};

TEST(Flags, SplitsOnWhitespaceAndHonoursQuotes) {
  EXPECT_EQ(splitFlagWords("  --a  --b=1\t--c "), (std::vector<std::string>{"--a", "--b=1", "--c"}));
  EXPECT_EQ(splitFlagWords("--dump-dir='/tmp/my dir' \"x y\""),
            (std::vector<std::string>{"--dump-dir=/tmp/my dir", "x y"}));
  EXPECT_EQ(splitFlagWords("a\\ b ''"), (std::vector<std::string>{"a b", ""}));
  EXPECT_TRUE(splitFlagWords("").empty());
}

// A name means one flag to each reader, or a tool could not tell which row to
// apply; and every row can be documented.
TEST(Flags, RegistryRowsAreWellFormed) {
  for (const FlagSpec& f : flagRegistry()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_TRUE(f.name.starts_with("-"));
    EXPECT_FALSE(f.help.empty());
    EXPECT_NE(f.readers, 0u);
    EXPECT_EQ(f.valueName.empty(), f.kind == FlagKind::Switch);
    if (f.kind == FlagKind::Count) EXPECT_LE(f.min, f.max);
    for (const FlagSpec& g : flagRegistry())
      if (&f != &g && g.matches(f.name)) EXPECT_EQ(f.readers & g.readers, 0u) << "also " << g.help;
  }
}

Expected<ParsedFlags> parse(FlagReader reader, std::vector<std::string> args, std::string_view env = "") {
  return parseFlags(reader, args, env);
}

std::string errorOf(const Expected<ParsedFlags>& parsed) {
  return parsed.isOk() ? "no error" : parsed.status().diag().message;
}

// Every flag of the registry, given in KILN_FLAGS, reaches the readers it
// applies to and no other (a flag for kiln-opt does not break kiln test).
TEST(Flags, EachReaderTakesItsOwnFlagsFromTheEnvironment) {
  for (const FlagSpec& f : flagRegistry()) {
    std::string word = std::string(f.name) + (f.kind == FlagKind::Switch  ? ""
                                              : f.kind == FlagKind::Count ? "=" + std::to_string(f.min)
                                                                          : "=x");
    for (FlagReader reader : kReaders) {
      SCOPED_TRACE(word + " for " + std::string(readerName(reader)));
      Expected<ParsedFlags> parsed = parse(reader, {}, word);
      ASSERT_TRUE(parsed.isOk()) << errorOf(parsed);
      bool applies = false;  // a row of this name applies to `reader` (not always `f`'s)
      for (const FlagSpec& g : flagRegistry()) applies |= g.matches(f.name) && (g.readers & reader);
      ASSERT_EQ(parsed->flags.size(), applies ? 1u : 0u);
      if (applies) EXPECT_TRUE(parsed->flags[0].fromEnvironment);
    }
  }
}

TEST(Flags, AFlagNoReaderKnowsIsAnErrorNamingKilnFlags) {
  EXPECT_EQ(errorOf(parse(kKilnRun, {}, "--pass-timing --bogus=1")),
            "KILN_FLAGS: unknown option '--bogus': no kiln tool or library reads it ('kiln help flags' lists those "
            "that exist)");
  EXPECT_EQ(errorOf(parse(kPython, {}, "--dump-dir /tmp/d stray")),
            "KILN_FLAGS: 'stray' is not an option (KILN_FLAGS holds options only)");
  EXPECT_EQ(errorOf(parse(kKilnOpt, {"--bogus"})), "unknown option '--bogus'");
}

// Values are checked by every reader, even for a flag it skips.
TEST(Flags, ValuesAreCheckedAgainstTheirKind) {
  EXPECT_EQ(errorOf(parse(kKilnOpt, {}, "--cpu_devices=abc")),
            "KILN_FLAGS: --cpu_devices needs a whole number from 1 to 1024, got 'abc'");
  EXPECT_EQ(errorOf(parse(kKilnRun, {"--threads", "0"})), "--threads needs a whole number from 1 to 1024, got '0'");
  EXPECT_EQ(errorOf(parse(kKilnOpt, {"--generic=maybe"})),
            "option '--generic' takes no value other than true or false, got 'maybe'");
  EXPECT_EQ(errorOf(parse(kKilnOpt, {"-o"})), "option '-o' needs a value");
  Expected<ParsedFlags> parsed = parse(kKilnTest, {"-j", "3", "--quiet=false"});
  ASSERT_TRUE(parsed.isOk()) << errorOf(parsed);
  EXPECT_EQ(parsed->last("--jobs")->number, 3);
  EXPECT_FALSE(parsed->last("--quiet")->on());
}

// On the command line a flag of another reader is a mistake, said as such.
TEST(Flags, ACommandLineFlagOfAnotherReaderIsAnError) {
  EXPECT_EQ(errorOf(parse(kKilnTest, {"--stats"})),
            "option '--stats' does not apply to kiln test (it is read by kiln-opt, kiln run)");
  EXPECT_EQ(errorOf(parse(kKilnRun, {"--cpu-devices=2"})),
            "option '--cpu-devices' does not apply to kiln run (it is read by the runtime)");
}

TEST(Flags, UnderscoresAndDashesAreOneSpelling) {
  Expected<ParsedFlags> parsed = parse(kRuntime, {}, "--cpu-devices=2 --cpu_devices=3");
  ASSERT_TRUE(parsed.isOk()) << errorOf(parsed);
  ASSERT_EQ(parsed->flags.size(), 2u);
  EXPECT_EQ(parsed->last("--cpu_devices")->number, 3);
  parsed = parse(kKilnOpt, {"--pass_timing", "--split_input_file"});
  ASSERT_TRUE(parsed.isOk()) << errorOf(parsed);
  EXPECT_TRUE(parsed->last("--pass-timing") && parsed->last("--split-input-file"));
}

TEST(Flags, EnvironmentWordsComeBeforeArguments) {
  Expected<ParsedFlags> parsed =
      parse(kKilnOpt, {"x.mlir", "--print-after=cse", "--", "-y"}, "--print-after all --stats");
  ASSERT_TRUE(parsed.isOk()) << errorOf(parsed);
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"x.mlir", "-y"}));
  EXPECT_EQ(parsed->last("--print-after")->text, "cse");  // the command line wins
  ASSERT_EQ(parsed->flags.size(), 3u);
  EXPECT_TRUE(parsed->flags[0].fromEnvironment && parsed->flags[1].fromEnvironment);
  EXPECT_FALSE(parsed->flags[2].fromEnvironment);
}

// --help is made from the registry: a tool's help lists exactly its flags.
TEST(Flags, HelpListsEachToolsFlags) {
  for (FlagReader reader : {kKilnOpt, kKilnRun, kKilnTest, kKilnLaunch}) {
    std::string help = "\n" + flagHelp(reader);
    for (const FlagSpec& f : flagRegistry()) {
      std::string entry = "\n  " + (f.shortName.empty() ? "" : std::string(f.shortName) + ", ") + std::string(f.name);
      bool listed = help.find(entry + " ") != std::string::npos || help.find(entry + "\n") != std::string::npos;
      bool reads = false;  // some row of this name applies to `reader`
      for (const FlagSpec& g : flagRegistry()) reads |= g.matches(f.name) && (g.readers & reader);
      EXPECT_EQ(listed, reads) << readerName(reader) << ":" << entry;
    }
  }
  for (const FlagSpec& f : flagRegistry()) EXPECT_NE(flagTable().find(f.name), std::string::npos);
}

}  // namespace
}  // namespace kiln
