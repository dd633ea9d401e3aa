// kiln._kiln's view of the flag registry (kiln/support/flags.h), so that the
// Python package checks KILN_FLAGS against the same table as the tools.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <stdexcept>

#include "kiln/support/flags.h"

namespace nb = nanobind;
using namespace nb::literals;

void bindFlags(nb::module_& m) {
  m.def(
      "parse_env_flags",
      [](const std::string& text) {
        kiln::Expected<kiln::ParsedFlags> parsed = kiln::parseFlags(kiln::kPython, {}, text);
        if (!parsed) throw std::invalid_argument(parsed.status().diag().message);
        std::map<std::string, std::string> values;  // the last value of each
        for (const kiln::FlagValue& f : parsed->flags) values[std::string(f.spec->name)] = f.text;
        return values;
      },
      "text"_a,
      "The flags of `text` (KILN_FLAGS) that the Python package reads, as {name: value} (a switch's value is "
      "'true' or 'false'); those of other parts of kiln are skipped. Raises ValueError for a flag nothing reads "
      "or a bad value.");
  m.def("flag_table", &kiln::flagTable, "Every flag of kiln, what it does and what reads it.");
}
