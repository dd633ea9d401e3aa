// The test assertions of `kiln test`: the check.* ops and the
// `stablehlo.custom_call @check.*` forms that JAX-generated test files use.
//
// A failed check is an error like any other, but its message starts with
// kCheckFailedMarker so that the test runner can tell "the program computed a
// wrong value" (FAIL) from "the program could not run" (ERROR).
#pragma once

#include <optional>
#include <string_view>

#include "kiln/interp/interpreter.h"
#include "kiln/support/diagnostic.h"

namespace kiln::interp {

inline constexpr std::string_view kCheckFailedMarker = "check failed: ";

// The kernel for custom_call target `target` ("check.expect_eq",
// "check.expect_close", "check.expect_almost_eq", "check.eq"); nullopt for
// every other target. The custom_call kernel (ops_misc.cpp) delegates to it.
std::optional<Kernel> checkCustomCallKernel(std::string_view target);

// For a failed check, the text after the marker ("check.expect_eq at index
// [1]: got 2, expected 3"); nullopt for any other diagnostic.
std::optional<std::string_view> checkFailureText(const Diagnostic& diag);

}  // namespace kiln::interp
