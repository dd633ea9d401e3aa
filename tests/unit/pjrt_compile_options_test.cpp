// The plugin's reader of serialized xla.CompileOptionsProto: the fields kiln
// uses, the wire format's variants (packed or not), and malformed input,
// which is an error and never a crash (jaxlib hands the bytes over as is).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kiln/pjrt/compile_options.h"

namespace kiln::pjrt {
namespace {

// Protobuf wire format, written by hand: a varint, a key, a field.
std::string varint(uint64_t v) {
  std::string out;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    out += static_cast<char>(byte | (v ? 0x80 : 0));
  } while (v);
  return out;
}
std::string intField(int number, uint64_t v) { return varint(uint64_t(number) << 3) + varint(v); }
std::string bytesField(int number, const std::string& bytes) {
  return varint((uint64_t(number) << 3) | 2) + varint(bytes.size()) + bytes;
}

// CompileOptionsProto { executable_build_options (3) { ... } }.
std::string options(const std::string& buildOptions) { return bytesField(3, buildOptions); }

TEST(PjrtCompileOptions, EmptyBytesMeanOneReplicaOnePartitionAndNoAssignment) {
  Expected<CompileOptions> o = parseCompileOptions("");
  ASSERT_TRUE(o.isOk());
  EXPECT_EQ(o->numReplicas, 1);
  EXPECT_EQ(o->numPartitions, 1);
  EXPECT_TRUE(o->deviceAssignment.empty());
}

TEST(PjrtCompileOptions, ReadsReplicasPartitionsAndTheAssignmentByReplicaThenPartition) {
  // Two replicas x two partitions: computation (partition) 0 on devices {3, 1},
  // computation 1 on {2, 0}; the first packed, the second not.
  std::string computation0 = bytesField(1, varint(3) + varint(1));
  std::string computation1 = intField(1, 2) + intField(1, 0);
  std::string assignment = intField(1, 2) + intField(2, 2) + bytesField(3, computation0) + bytesField(3, computation1);
  std::string build = intField(1, 7) /* device_ordinal, skipped */ + intField(4, 2) + intField(5, 2) +
                      bytesField(9, assignment) + bytesField(3, "debug options, skipped");
  Expected<CompileOptions> o = parseCompileOptions(options(build) + intField(5, 1));
  ASSERT_TRUE(o.isOk()) << o.status().message();
  EXPECT_EQ(o->numReplicas, 2);
  EXPECT_EQ(o->numPartitions, 2);
  EXPECT_EQ(o->deviceAssignment, (std::vector<int>{3, 2, 1, 0}));
}

TEST(PjrtCompileOptions, AnAssignmentOfTheWrongSizeIsAnError) {
  std::string assignment = intField(1, 1) + intField(2, 1) + bytesField(3, intField(1, 0));
  Expected<CompileOptions> o = parseCompileOptions(options(intField(4, 2) + bytesField(9, assignment)));
  ASSERT_FALSE(o.isOk());
  EXPECT_NE(o.status().message().find("device assignment"), std::string::npos) << o.status().message();
}

TEST(PjrtCompileOptions, TruncatedOrNonsenseBytesAreErrorsNotCrashes) {
  std::string good = options(intField(4, 2) + intField(5, 1));
  for (size_t cut = 1; cut < good.size(); ++cut) {
    Expected<CompileOptions> o = parseCompileOptions(good.substr(0, cut));
    if (!o.isOk()) {
      EXPECT_NE(o.status().message().find("compile options"), std::string::npos);
    }
  }
  EXPECT_FALSE(parseCompileOptions(options(intField(4, 0))).isOk());  // zero replicas
  EXPECT_FALSE(parseCompileOptions(std::string(11, '\xff')).isOk());   // a varint longer than 10 bytes
  std::mt19937 random(7);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(random() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    (void)parseCompileOptions(bytes);  // any outcome but a crash
  }
}

}  // namespace
}  // namespace kiln::pjrt
