// Field numbers (xla/pjrt/proto/compile_options.proto, xla/xla_data.proto):
//   CompileOptionsProto:         3 executable_build_options
//   ExecutableBuildOptionsProto: 4 num_replicas, 5 num_partitions, 9 device_assignment
//   DeviceAssignmentProto:       1 replica_count, 2 computation_count,
//                                3 computation_devices (one per partition)
//   ComputationDevice:           1 replica_device_ids (packed or not)
#include "kiln/pjrt/compile_options.h"

#include <cstdint>
#include <string>

namespace kiln::pjrt {

namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// One field of a message: its number, wire type and value.
struct Field {
  int number = 0;
  WireType wire = kVarint;
  uint64_t varint = 0;     // kVarint
  std::string_view bytes;  // kLengthDelimited
};

class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }

  Expected<Field> next() {
    KILN_ASSIGN_OR_RETURN(uint64_t key, varint());
    Field field;
    field.number = static_cast<int>(key >> 3);
    field.wire = static_cast<WireType>(key & 7);
    switch (field.wire) {
      case kVarint: {
        KILN_ASSIGN_OR_RETURN(field.varint, varint());
        return field;
      }
      case kFixed64: return skip(8, field);
      case kFixed32: return skip(4, field);
      case kLengthDelimited: {
        KILN_ASSIGN_OR_RETURN(uint64_t length, varint());
        if (length > rest_.size()) return malformed("a field runs past the end");
        field.bytes = rest_.substr(0, length);
        rest_.remove_prefix(length);
        return field;
      }
    }
    return malformed("unknown wire type " + std::to_string(key & 7));
  }

  Expected<uint64_t> varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return malformed("a number runs past the end");
      uint8_t byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    return malformed("a number is longer than 10 bytes");
  }

 private:
  Expected<Field> skip(size_t n, Field field) {
    if (n > rest_.size()) return malformed("a field runs past the end");
    rest_.remove_prefix(n);
    return field;
  }
  static Status malformed(std::string what) {
    return error(ErrorCode::InvalidArgument, "malformed compile options: " + what);
  }
  std::string_view rest_;
};

Expected<int> smallCount(uint64_t value, const char* what) {
  if (value < 1 || value > 1 << 20)
    return error(ErrorCode::InvalidArgument, std::string("compile options: ") + what + " is " +
                                                 std::to_string(static_cast<int64_t>(value)));
  return static_cast<int>(value);
}

// replica_device_ids of one ComputationDevice, appended to `ids`.
Status readComputationDevice(std::string_view bytes, std::vector<int>& ids) {
  WireReader reader(bytes);
  while (!reader.done()) {
    KILN_ASSIGN_OR_RETURN(Field field, reader.next());
    if (field.number != 1) continue;
    if (field.wire == kVarint) {
      ids.push_back(static_cast<int>(field.varint));
    } else if (field.wire == kLengthDelimited) {
      WireReader packed(field.bytes);
      while (!packed.done()) {
        KILN_ASSIGN_OR_RETURN(uint64_t id, packed.varint());
        ids.push_back(static_cast<int>(id));
      }
    }
  }
  return Status::ok();
}

Status readDeviceAssignment(std::string_view bytes, CompileOptions& options) {
  int replicas = 0, computations = 0;
  std::vector<std::vector<int>> byComputation;
  WireReader reader(bytes);
  while (!reader.done()) {
    KILN_ASSIGN_OR_RETURN(Field field, reader.next());
    if (field.number == 1 && field.wire == kVarint) {
      KILN_ASSIGN_OR_RETURN(replicas, smallCount(field.varint, "the device assignment's replica count"));
    } else if (field.number == 2 && field.wire == kVarint) {
      KILN_ASSIGN_OR_RETURN(computations, smallCount(field.varint, "the device assignment's computation count"));
    } else if (field.number == 3 && field.wire == kLengthDelimited) {
      KILN_RETURN_IF_ERROR(readComputationDevice(field.bytes, byComputation.emplace_back()));
    }
  }
  if (static_cast<int>(byComputation.size()) != computations)
    return error(ErrorCode::InvalidArgument, "compile options: the device assignment lists " +
                                                 std::to_string(byComputation.size()) + " computations, not " +
                                                 std::to_string(computations));
  for (const std::vector<int>& ids : byComputation)
    if (static_cast<int>(ids.size()) != replicas)
      return error(ErrorCode::InvalidArgument, "compile options: a computation of the device assignment lists " +
                                                   std::to_string(ids.size()) + " devices, not " +
                                                   std::to_string(replicas));
  options.deviceAssignment.clear();
  for (int r = 0; r < replicas; ++r)
    for (int p = 0; p < computations; ++p) options.deviceAssignment.push_back(byComputation[p][r]);
  return Status::ok();
}

Status readBuildOptions(std::string_view bytes, CompileOptions& options) {
  WireReader reader(bytes);
  while (!reader.done()) {
    KILN_ASSIGN_OR_RETURN(Field field, reader.next());
    if (field.number == 4 && field.wire == kVarint) {
      KILN_ASSIGN_OR_RETURN(options.numReplicas, smallCount(field.varint, "num_replicas"));
    } else if (field.number == 5 && field.wire == kVarint) {
      KILN_ASSIGN_OR_RETURN(options.numPartitions, smallCount(field.varint, "num_partitions"));
    } else if (field.number == 9 && field.wire == kLengthDelimited) {
      KILN_RETURN_IF_ERROR(readDeviceAssignment(field.bytes, options));
    }
  }
  return Status::ok();
}

}  // namespace

Expected<CompileOptions> parseCompileOptions(std::string_view bytes) {
  CompileOptions options;
  WireReader reader(bytes);
  while (!reader.done()) {
    KILN_ASSIGN_OR_RETURN(Field field, reader.next());
    if (field.number == 3 && field.wire == kLengthDelimited)
      KILN_RETURN_IF_ERROR(readBuildOptions(field.bytes, options));
  }
  if (!options.deviceAssignment.empty() &&
      options.deviceAssignment.size() != static_cast<size_t>(options.numReplicas) * options.numPartitions)
    return error(ErrorCode::InvalidArgument,
                 "compile options: " + std::to_string(options.numReplicas) + " replica(s) x " +
                     std::to_string(options.numPartitions) + " partition(s), but the device assignment has " +
                     std::to_string(options.deviceAssignment.size()) + " devices");
  return options;
}

}  // namespace kiln::pjrt
