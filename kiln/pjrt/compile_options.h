// The fields kiln reads from the serialized xla.CompileOptionsProto that
// PJRT_Client_Compile receives: replicas, partitions and the device
// assignment. A small reader of protobuf's wire format, so the plugin needs
// no protobuf library; fields kiln does not use are skipped.
#pragma once

#include <string_view>
#include <vector>

#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

struct CompileOptions {
  int numReplicas = 1;
  int numPartitions = 1;
  // Device ids by replica, then partition: deviceAssignment[r * numPartitions + p].
  // Empty when the caller left the choice to the plugin.
  std::vector<int> deviceAssignment;
};

// Reads `bytes`; an error names what is malformed.
Expected<CompileOptions> parseCompileOptions(std::string_view bytes);

}  // namespace kiln::pjrt
