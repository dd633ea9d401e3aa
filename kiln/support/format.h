// Small text-formatting helpers shared by the printer and diagnostics.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln {

// Shortest decimal text that reads back as the same double ("0.5", "1e-07").
std::string formatDouble(double v);
// "[1, 2, 3]" (or with another separator/brackets).
std::string joinInts(std::span<const int64_t> v, const char* sep = ", ");
// A count with an SI prefix: "160", "2.50k", "3.10M", "1.20G".
std::string siCount(double value);
// `text` as a JSON string literal, quotes included.
std::string jsonQuote(std::string_view text);

}  // namespace kiln
