// What the deprecated ops' type rules (deprecated_ops.cpp) and the legalize
// pass share: the reading of an einsum config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kiln/support/diagnostic.h"

namespace kiln {

// "ab,bc->ac": one term of labels per input and the output's. Labels are
// letters, each at most once per term; every output label is in an input.
struct EinsumConfig {
  std::vector<std::string> inputs;
  std::string output;
};
Expected<EinsumConfig> parseEinsumConfig(std::string_view config, size_t numInputs);

}  // namespace kiln
