#include "kiln/support/format.h"

#include <charconv>
#include <cstdio>

namespace kiln {

std::string formatDouble(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string joinInts(std::span<const int64_t> v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

std::string siCount(double value) {
  const char* prefixes[] = {"", "k", "M", "G", "T"};
  int prefix = 0;
  while (value >= 1000 && prefix < 4) value /= 1000, ++prefix;
  char buf[32];
  std::snprintf(buf, sizeof buf, prefix ? "%.2f%s" : "%.0f%s", value, prefixes[prefix]);
  return buf;
}

std::string jsonQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace kiln
