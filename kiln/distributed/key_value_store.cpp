#include "kiln/distributed/key_value_store.h"

#include "kiln/support/format.h"

namespace kiln::distributed {

Status keyTimeoutError(std::string_view key, std::chrono::milliseconds timeout) {
  return error(ErrorCode::FailedPrecondition,
               "the key-value store had no '" + std::string(key) + "' after " +
                   formatDouble(timeout.count() / 1000.0) + " s (did every process start?)");
}

}  // namespace kiln::distributed
