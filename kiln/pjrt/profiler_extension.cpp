#include "kiln/pjrt/profiler_extension.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kiln/pjrt/xspace.h"
#include "kiln/support/trace.h"

// The size jaxlib requires of the function table (PLUGIN_Profiler_Api_STRUCT_SIZE).
static_assert(sizeof(PLUGIN_Profiler_Api) == 80);

// One profile of jaxlib's profiling session.
struct PLUGIN_Profiler {
  bool started = false;
  bool stopped = false;
  bool ownsSession = false;  // started kiln's trace session (rather than sharing KILN_TRACE's)
  kiln::pjrt::ProfileWindow window;
  std::string xspace;  // collect_data's result, which jaxlib reads in place
};

struct PLUGIN_Profiler_Error {
  std::string message;
  int code;
};

namespace {

constexpr int kFailedPrecondition = 9;  // absl::StatusCode::kFailedPrecondition

PLUGIN_Profiler_Error* failedPrecondition(const char* what) {
  return new PLUGIN_Profiler_Error{std::string("kiln: profiler: ") + what, kFailedPrecondition};
}

void errorDestroy(PLUGIN_Profiler_Error_Destroy_Args* args) { delete args->error; }

void errorMessage(PLUGIN_Profiler_Error_Message_Args* args) {
  args->message = args->error->message.data();
  args->message_size = args->error->message.size();
}

PLUGIN_Profiler_Error* errorGetCode(PLUGIN_Profiler_Error_GetCode_Args* args) {
  args->code = args->error->code;
  return nullptr;
}

// The options (which tracers at which levels) concern jaxlib's own tracers;
// kiln records what its tracer records.
PLUGIN_Profiler_Error* create(PLUGIN_Profiler_Create_Args* args) {
  args->profiler = new PLUGIN_Profiler;
  return nullptr;
}

// A session KILN_TRACE records already is shared, not restarted (a restart
// would drop what it recorded); the profile then takes its slices from start
// to stop.
PLUGIN_Profiler_Error* start(PLUGIN_Profiler_Args* args) {
  PLUGIN_Profiler* p = args->profiler;
  if (p->started) return failedPrecondition("started twice");
  p->ownsSession = !kiln::trace::enabled();
  if (p->ownsSession) kiln::trace::start();
  p->window.startNs = kiln::trace::now();
  p->window.originUnixNs = kiln::trace::originUnixNs();
  p->started = true;
  return nullptr;
}

PLUGIN_Profiler_Error* stop(PLUGIN_Profiler_Args* args) {
  PLUGIN_Profiler* p = args->profiler;
  if (!p->started || p->stopped) return failedPrecondition("stop without a running profile");
  p->window.stopNs = kiln::trace::now();
  p->stopped = true;
  if (p->ownsSession) kiln::trace::stop();
  return nullptr;
}

// jaxlib 0.10.2 calls this once with a null buffer and parses the plugin's
// own buffer, which lives until the next collect or destroy; the header's
// older contract, a second call with the caller's buffer, is served too.
PLUGIN_Profiler_Error* collectData(PLUGIN_Profiler_CollectData_Args* args) {
  PLUGIN_Profiler* p = args->profiler;
  if (!p->stopped) return failedPrecondition("collect_data before stop");
  if (args->buffer) {
    std::memcpy(args->buffer, p->xspace.data(), std::min(args->buffer_size_in_bytes, p->xspace.size()));
    return nullptr;
  }
  p->xspace = kiln::pjrt::xspaceFromTrace(kiln::trace::events(), kiln::trace::threadNames(), p->window);
  args->buffer = reinterpret_cast<uint8_t*>(p->xspace.data());
  args->buffer_size_in_bytes = p->xspace.size();
  return nullptr;
}

// jaxlib destroys a profiler without stopping it when its session fails.
PLUGIN_Profiler_Error* destroy(PLUGIN_Profiler_Args* args) {
  if (args->profiler && args->profiler->started && !args->profiler->stopped) stop(args);
  delete args->profiler;
  return nullptr;
}

PLUGIN_Profiler_Api profilerApi{sizeof(PLUGIN_Profiler_Api), nullptr, errorDestroy, errorMessage, errorGetCode,
                                create, destroy, start, stop, collectData};

PJRT_Profiler_Extension extension{{sizeof(PJRT_Profiler_Extension), PJRT_Extension_Type_Profiler, nullptr},
                                  &profilerApi, 0};

}  // namespace

namespace kiln::pjrt {

PJRT_Extension_Base* profilerExtension() { return &extension.base; }

}  // namespace kiln::pjrt
