// Protocol buffers' wire format, written by hand: enough to serialize a
// message whose schema is fixed in code (the XSpace the profiler extension
// returns, kiln/pjrt/xspace.h) without a protobuf dependency for one message.
//
// Only the two wire types such messages need: varints (int64, uint64, bool,
// enums) and length-delimited fields (strings, bytes, nested messages, map
// entries, packed repeated integers). See https://protobuf.dev/programming-guides/encoding/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::pjrt {

class ProtoWriter {
 public:
  // An integer field. A negative value takes ten bytes, as protobuf's int64
  // does (two's complement, not zigzag).
  void integer(int field, int64_t value) {
    tag(field, kVarint);
    varint(static_cast<uint64_t>(value));
  }
  // A string or bytes field.
  void bytes(int field, std::string_view value) {
    tag(field, kLengthDelimited);
    varint(value.size());
    out_.append(value);
  }
  // A repeated integer field, packed (one length-delimited run of varints).
  void packed(int field, std::span<const int64_t> values) {
    std::string run;
    std::swap(run, out_);
    for (int64_t v : values) varint(static_cast<uint64_t>(v));
    std::swap(run, out_);
    bytes(field, run);
  }
  // A nested message field (a map entry is a message with key 1, value 2).
  void message(int field, const ProtoWriter& nested) { bytes(field, nested.out_); }

  const std::string& data() const { return out_; }

 private:
  enum WireType { kVarint = 0, kLengthDelimited = 2 };

  void tag(int field, WireType type) { varint(static_cast<uint64_t>(field) << 3 | type); }
  // Seven bits a byte, least significant first; the high bit says more follow.
  void varint(uint64_t value) {
    for (; value >= 0x80; value >>= 7) out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    out_.push_back(static_cast<char>(value));
  }

  std::string out_;
};

}  // namespace kiln::pjrt
