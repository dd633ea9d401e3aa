// kiln/pjrt/protobuf_writer.h's wire format and kiln/pjrt/xspace.h's XSpace,
// read back by a decoder of the wire format written from the spec.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kiln/pjrt/protobuf_writer.h"
#include "kiln/pjrt/xspace.h"

namespace kiln::pjrt {
namespace {

TEST(ProtoWriter, EncodesVarintsAndLengthDelimitedFields) {
  ProtoWriter w;
  w.integer(1, 150);  // the spec's example: 08 96 01
  w.bytes(2, "testing");
  EXPECT_EQ(w.data(), std::string("\x08\x96\x01\x12\x07testing", 12));

  ProtoWriter negative;
  negative.integer(3, -1);  // int64: ten bytes of two's complement
  EXPECT_EQ(negative.data(), std::string("\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));

  ProtoWriter outer;
  outer.message(3, w);
  EXPECT_EQ(outer.data(), "\x1a\x0c" + w.data());
}

// A decoded message: each field number's values, integers or bytes.
struct Message {
  std::multimap<int, uint64_t> integers;
  std::multimap<int, std::string> bytes;

  uint64_t integer(int field) const { return integers.count(field) ? integers.find(field)->second : 0; }
  std::string string(int field) const { return bytes.count(field) ? bytes.find(field)->second : ""; }
  std::vector<Message> messages(int field) const;
};

Message decode(const std::string& data) {
  Message m;
  size_t i = 0;
  auto varint = [&] {
    uint64_t value = 0;
    for (int shift = 0; i < data.size(); shift += 7) {
      uint8_t byte = data[i++];
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    return value;
  };
  while (i < data.size()) {
    uint64_t tag = varint();
    int field = int(tag >> 3);
    if ((tag & 7) == 0) {
      m.integers.emplace(field, varint());
    } else {
      EXPECT_EQ(tag & 7, 2u) << "kiln writes varints and length-delimited fields only";
      size_t size = varint();
      m.bytes.emplace(field, data.substr(i, size));
      i += size;
    }
  }
  return m;
}

std::vector<Message> Message::messages(int field) const {
  std::vector<Message> out;
  for (auto [it, end] = bytes.equal_range(field); it != end; ++it) out.push_back(decode(it->second));
  return out;
}

TEST(XSpace, HoldsOnePlaneWithALinePerThreadAndTheSlicesInTheWindow) {
  std::vector<trace::Event> events = {
      {"before the profile", "run", 100, 50, 1, {}},
      {"execute jit_f on cpu:0", "run", 1000, 700, 1, {}},
      {"loop fusion [add, tanh] f.py:3", "kernel", 1100, 200, 1, {{"op", "kiln.fusion"}}},
      {"loop fusion [add, tanh] f.py:3", "kernel", 1100, 180, 2, {{"op", "kiln.fusion"}}},
  };
  std::vector<std::pair<uint32_t, std::string>> threads = {{1, "main"}, {2, "kiln pool worker"}};
  ProfileWindow window{900, 2900, 1'700'000'000'000'000'000};

  Message space = decode(xspaceFromTrace(events, threads, window));
  std::vector<Message> planes = space.messages(1);
  ASSERT_EQ(planes.size(), 1u);
  const Message& plane = planes[0];
  EXPECT_EQ(plane.string(2), kXSpacePlaneName);

  std::map<uint64_t, std::string> eventNames, statNames;
  for (const Message& entry : plane.messages(4)) eventNames[entry.integer(1)] = entry.messages(2)[0].string(2);
  for (const Message& entry : plane.messages(5)) statNames[entry.integer(1)] = entry.messages(2)[0].string(2);
  EXPECT_EQ(eventNames.size(), 2u) << "one metadata per name";

  std::vector<Message> lines = plane.messages(3);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].string(2), "main");
  EXPECT_EQ(lines[1].string(2), "kiln pool worker");
  EXPECT_EQ(lines[0].integer(3), window.originUnixNs + 900) << "lines start at the profile's start, Unix ns";
  EXPECT_EQ(lines[0].integer(9), 2000'000u) << "the profile's length, in ps";

  std::vector<Message> mainEvents = lines[0].messages(4);
  ASSERT_EQ(mainEvents.size(), 2u) << "the slice before the profile is left out";
  EXPECT_EQ(eventNames[mainEvents[0].integer(1)], "execute jit_f on cpu:0");
  EXPECT_EQ(mainEvents[0].integer(2), 100'000u) << "offset from the line's start, in ps";
  EXPECT_EQ(mainEvents[0].integer(3), 700'000u) << "duration in ps";

  const Message& kernel = mainEvents[1];
  EXPECT_EQ(eventNames[kernel.integer(1)], "loop fusion [add, tanh] f.py:3");
  std::map<std::string, std::string> stats;
  for (const Message& stat : kernel.messages(4)) stats[statNames[stat.integer(1)]] = stat.string(5);
  EXPECT_EQ(stats, (std::map<std::string, std::string>{{"category", "kernel"}, {"op", "kiln.fusion"}}));
  EXPECT_EQ(lines[1].messages(4)[0].integer(1), kernel.integer(1)) << "both threads' chunks share the kernel's name";
}

}  // namespace
}  // namespace kiln::pjrt
