// kiln/support/trace.h: sessions, nesting, tracks and the JSON it writes.
#include "kiln/support/trace.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

namespace kiln::trace {
namespace {

TEST(Trace, RecordsNothingWhenOff) {
  start();
  stop();
  bool named = false;
  {
    Scope s("test", "while off");
    Scope lazy("test", [&] {
      named = true;
      return std::string("built only while recording");
    });
    EXPECT_FALSE(lazy.active());
  }
  EXPECT_TRUE(events().empty());
  EXPECT_FALSE(named);
}

TEST(Trace, NestedScopesComeParentFirstOnOneTrack) {
  start();
  {
    Scope outer("test", "outer");
    outer.arg("why", "a parent");
    { Scope inner("test", std::string("inner")); }
  }
  stop();
  std::vector<Event> recorded = events();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].name, "outer");
  EXPECT_EQ(recorded[1].name, "inner");
  EXPECT_EQ(recorded[0].thread, recorded[1].thread);
  EXPECT_LE(recorded[0].startNs, recorded[1].startNs);
  EXPECT_GE(recorded[0].startNs + recorded[0].durationNs, recorded[1].startNs + recorded[1].durationNs);
  ASSERT_EQ(recorded[0].args.size(), 1u);
  EXPECT_EQ(recorded[0].args[0].second, "a parent");
}

TEST(Trace, StartDropsTheLastSessionAndSlicesStillOpen) {
  start();
  { Scope s("test", "first session"); }
  auto open = std::make_unique<Scope>("test", "spans two sessions");
  start();
  open.reset();
  { Scope s("test", "second session"); }
  stop();
  std::vector<Event> recorded = events();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].name, "second session");
}

TEST(Trace, EachThreadIsATrackWithItsName) {
  start();
  { Scope s("test", "on main"); }
  std::thread worker([] {
    setThreadName("worker");
    Scope s("test", "on worker");
  });
  worker.join();
  stop();
  std::vector<Event> recorded = events();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_NE(recorded[0].thread, recorded[1].thread);
  std::vector<std::pair<uint32_t, std::string>> names = threadNames();
  auto nameOf = [&](uint32_t thread) {
    for (const auto& [t, name] : names)
      if (t == thread) return name;
    return std::string();
  };
  for (const Event& e : recorded) EXPECT_EQ(nameOf(e.thread), e.name == "on main" ? "main" : "worker");
}

TEST(Trace, JsonHasMetadataAndEscapedCompleteEvents) {
  start();
  { Scope s("test", "a \"quoted\"\nname"); }
  stop();
  std::string json = toJson();
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\": \"M\", \"name\": \"thread_name\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\": \"X\", \"name\": \"a \\\"quoted\\\"\\nname\", \"cat\": \"test\""), std::string::npos);
}

}  // namespace
}  // namespace kiln::trace
