// kiln's trace (kiln/support/trace.h) as a serialized tensorflow.profiler.XSpace
// (openxla/xla, xla/tsl/profiler/protobuf/xplane.proto): what jaxlib's
// profiler collects from a plugin's profiler extension and writes, with its
// own host planes, to jax.profiler.trace's *.xplane.pb.
//
// One plane, kXSpacePlaneName, holds all of kiln's slices: a line per thread
// (named as the trace names the thread: "main", "kiln pool worker",
// "replica 0 partition 1"), an event per slice named as the slice is
// (kernels, library calls, routines, executions, compiles, passes), with the
// slice's category and arguments as its stats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/support/trace.h"

namespace kiln::pjrt {

// "/device:CUSTOM:" is the prefix XLA's profiler tools (xprof, TensorBoard's
// profile plugin) show as a device for accelerators that are neither GPUs nor
// TPUs; "/host:CPU" is the host tracer's own plane, which a plugin's plane
// must not share a name with.
inline constexpr std::string_view kXSpacePlaneName = "/device:CUSTOM:kiln";

// The part of a trace session that one profile covers.
struct ProfileWindow {
  int64_t startNs = 0;  // on the session's clock (trace::now())
  int64_t stopNs = 0;
  int64_t originUnixNs = 0;  // the session's start on the system clock (trace::originUnixNs())
};

// The slices that start within `window`, on the threads named in `threads`
// (trace::threadNames()), as a serialized XSpace. `events` are in
// trace::events()'s order (by thread, then start).
std::string xspaceFromTrace(const std::vector<trace::Event>& events,
                            const std::vector<std::pair<uint32_t, std::string>>& threads, const ProfileWindow& window);

}  // namespace kiln::pjrt
