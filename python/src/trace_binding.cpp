// kiln._kiln's view of kiln's tracing (kiln/support/trace.h), under
// kiln.profile (python/kiln/profile.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <stdexcept>

#include "kiln/support/trace.h"

namespace nb = nanobind;
using namespace nb::literals;

void bindTrace(nb::module_& m) {
  m.def("trace_start", &kiln::trace::start, "Starts recording a trace (dropping the events of an earlier one).");
  m.def("trace_stop", &kiln::trace::stop, "Stops recording; the events stay until the next trace_start().");
  m.def("trace_enabled", &kiln::trace::enabled, "Whether a trace is recording.");
  m.def("trace_json", &kiln::trace::toJson, "The events recorded, in the Chrome trace event format.");
  m.def(
      "trace_write",
      [](const std::string& path) {
        kiln::Status status = kiln::trace::writeJson(path);
        if (!status.isOk()) throw std::runtime_error(status.diag().message);
      },
      "path"_a, "Writes the events recorded to `path` in the Chrome trace event format.");
}
