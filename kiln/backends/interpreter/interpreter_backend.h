// The reference interpreter as a back end: no pipeline, every op run by its
// interpreter kernel (kiln/interp/). The oracle every other back end is
// checked against.
#pragma once

#include "kiln/backends/backend.h"

namespace kiln::backend {

const Backend* interpreterBackend();

}  // namespace kiln::backend
