#include "kiln/tools/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "kiln/support/format.h"

namespace kiln::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy pads the header so that the data starts at a multiple of this.
constexpr size_t kHeaderAlignment = 64;

// The one table that knows which dtype each element type is saved as.
struct DTypeEntry {
  TypeKind kind;
  std::string_view descr;  // what we write (little-endian where it matters)
  std::string_view name;   // numpy's / ml_dtypes' name of the dtype
};
constexpr DTypeEntry kDTypes[] = {
    {TypeKind::I1, "|b1", "bool"},
    {TypeKind::SI8, "|i1", "int8"},
    {TypeKind::SI16, "<i2", "int16"},
    {TypeKind::SI32, "<i4", "int32"},
    {TypeKind::SI64, "<i8", "int64"},
    {TypeKind::UI8, "|u1", "uint8"},
    {TypeKind::UI16, "<u2", "uint16"},
    {TypeKind::UI32, "<u4", "uint32"},
    {TypeKind::UI64, "<u8", "uint64"},
    {TypeKind::F16, "<f2", "float16"},
    {TypeKind::F32, "<f4", "float32"},
    {TypeKind::F64, "<f8", "float64"},
    {TypeKind::Complex64, "<c8", "complex64"},
    {TypeKind::Complex128, "<c16", "complex128"},
    // Types only ml_dtypes knows: the descr is the ml_dtypes name.
    {TypeKind::BF16, "bfloat16", "bfloat16"},
    {TypeKind::F8E3M4, "float8_e3m4", "float8_e3m4"},
    {TypeKind::F8E4M3, "float8_e4m3", "float8_e4m3"},
    {TypeKind::F8E4M3FN, "float8_e4m3fn", "float8_e4m3fn"},
    {TypeKind::F8E4M3FNUZ, "float8_e4m3fnuz", "float8_e4m3fnuz"},
    {TypeKind::F8E4M3B11FNUZ, "float8_e4m3b11fnuz", "float8_e4m3b11fnuz"},
    {TypeKind::F8E5M2, "float8_e5m2", "float8_e5m2"},
    {TypeKind::F8E5M2FNUZ, "float8_e5m2fnuz", "float8_e5m2fnuz"},
    {TypeKind::F8E8M0FNU, "float8_e8m0fnu", "float8_e8m0fnu"},
    {TypeKind::F6E2M3FN, "float6_e2m3fn", "float6_e2m3fn"},
    {TypeKind::F6E3M2FN, "float6_e3m2fn", "float6_e3m2fn"},
    {TypeKind::F4E2M1FN, "float4_e2m1fn", "float4_e2m1fn"},
    {TypeKind::SI2, "int2", "int2"},
    {TypeKind::SI4, "int4", "int4"},
    {TypeKind::UI2, "uint2", "uint2"},
    {TypeKind::UI4, "uint4", "uint4"},
};

const DTypeEntry* entryFor(TypeKind kind) {
  for (const DTypeEntry& e : kDTypes)
    if (e.kind == kind) return &e;
  return nullptr;
}

// True for the element types numpy can only hold through ml_dtypes, which
// numpy's own np.save writes with a raw descr.
bool isMlDtypesOnly(TypeKind kind) {
  const DTypeEntry* e = entryFor(kind);
  return e && e->descr == e->name;
}

// Bytes per element in NumPy (and in kiln's storage: they agree).
unsigned itemSizeOf(Type element) { return element.storageBytes(); }

// "(2, 3)", "(3,)", "()" as Python writes a tuple.
std::string pythonTuple(std::span<const int64_t> shape) {
  std::string s = "(" + joinInts(shape);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// --- Header parsing ---------------------------------------------------------
//
// The header is a Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }

struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Expected<Header> parse() {
    Header h;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!consume('{')) return fail("expected '{'");
    while (!consume('}')) {
      std::optional<std::string> key = string();
      if (!key) return fail("expected a quoted key");
      if (!consume(':')) return fail("expected ':' after '" + *key + "'");
      if (*key == "descr") {
        if (peek() == '[') return fail("structured dtypes are not supported");
        std::optional<std::string> d = string();
        if (!d) return fail("expected a string for 'descr'");
        h.descr = *d;
        sawDescr = true;
      } else if (*key == "fortran_order") {
        std::optional<bool> b = boolean();
        if (!b) return fail("expected True or False for 'fortran_order'");
        h.fortranOrder = *b;
        sawOrder = true;
      } else if (*key == "shape") {
        std::optional<std::vector<int64_t>> s = intTuple();
        if (!s) return fail("expected a tuple of integers for 'shape'");
        h.shape = *s;
        sawShape = true;
      } else {
        return fail("unexpected key '" + *key + "'");
      }
      if (!consume(',') && peek() != '}') return fail("expected ',' or '}'");
    }
    if (!sawDescr || !sawOrder || !sawShape)
      return fail("needs the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  Status fail(std::string message) { return error("malformed .npy header: " + message); }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  std::optional<std::string> string() {
    char quote = peek();
    if (quote != '\'' && quote != '"') return std::nullopt;
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  std::optional<bool> boolean() {
    skipSpace();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::string_view(word).size();
        return value;
      }
    }
    return std::nullopt;
  }
  std::optional<int64_t> integer() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start || pos_ - start > 18) return std::nullopt;
    int64_t v = std::stoll(std::string(text_.substr(start, pos_ - start)));
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long
    return v;
  }
  std::optional<std::vector<int64_t>> intTuple() {
    if (!consume('(')) return std::nullopt;
    std::vector<int64_t> v;
    while (!consume(')')) {
      std::optional<int64_t> d = integer();
      if (!d) return std::nullopt;
      v.push_back(*d);
      if (!consume(',') && peek() != ')') return std::nullopt;
    }
    return v;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Interprets a descr: "<f4", ">i8", "|b1", "<V2", "bfloat16", ...; also
// tells whether the data is big-endian.
Expected<DType> parseDescr(const std::string& descr, bool& bigEndian) {
  DType d;
  d.descr = descr;
  bigEndian = false;
  for (const DTypeEntry& e : kDTypes) {
    if (e.descr == e.name && e.name == descr) {  // an ml_dtypes name
      d.elementType = Type::element(e.kind);
      d.itemSize = itemSizeOf(d.elementType);
      return d;
    }
  }
  std::string_view rest = descr;
  if (!rest.empty() && std::string_view("<>|=").find(rest[0]) != std::string_view::npos) {
    bigEndian = rest[0] == '>';
    rest.remove_prefix(1);
  }
  if (rest.size() < 2 || rest.size() > 4 || !std::all_of(rest.begin() + 1, rest.end(), ::isdigit))
    return error("unsupported .npy dtype '" + descr + "'");
  char code = rest[0];
  unsigned size = static_cast<unsigned>(std::stoul(std::string(rest.substr(1))));
  d.itemSize = size;
  // numpy writes ml_dtypes arrays as raw bytes: 'V<n>', and 'f1' (there is no
  // 1-byte numpy float) for float8_e5m2.
  if (code == 'V' || (code == 'f' && size == 1)) return d;
  for (const DTypeEntry& e : kDTypes) {
    if (e.descr.size() < 2 || e.descr == e.name) continue;
    if (e.descr[1] == code && e.descr.substr(2) == rest.substr(1)) {
      d.elementType = Type::element(e.kind);
      return d;
    }
  }
  return error("unsupported .npy dtype '" + descr + "' (kiln has no element type for it)");
}

// Reverses the bytes of every `unit`-byte word of `data`.
void byteSwap(std::vector<uint8_t>& data, unsigned unit) {
  for (size_t i = 0; i + unit <= data.size(); i += unit)
    std::reverse(data.begin() + i, data.begin() + i + unit);
}

// Reorders column-major data of `shape` into row-major order.
std::vector<uint8_t> fortranToRowMajor(const std::vector<uint8_t>& data,
                                       std::span<const int64_t> shape, unsigned itemSize) {
  std::vector<uint8_t> out(data.size());
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t count = static_cast<int64_t>(data.size() / std::max(itemSize, 1u));
  for (int64_t rowMajor = 0; rowMajor < count; ++rowMajor) {
    int64_t colMajor = 0;
    for (size_t d = rank; d-- > 0;) colMajor = colMajor * shape[d] + index[d];
    std::copy_n(data.begin() + colMajor * itemSize, itemSize, out.begin() + rowMajor * itemSize);
    for (size_t d = rank; d-- > 0;) {  // next row-major index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

size_t readLittleEndian(std::string_view bytes, size_t offset, size_t n) {
  size_t value = 0;
  for (size_t i = 0; i < n; ++i)
    value |= size_t(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return value;
}

// `dict` padded with spaces and ended with '\n' so that the data after a
// preamble of `preambleSize` bytes starts aligned, as numpy does.
std::string paddedHeader(const std::string& dict, size_t preambleSize) {
  size_t unpadded = preambleSize + dict.size() + 1;
  size_t padding = (kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment;
  return dict + std::string(padding, ' ') + "\n";
}

}  // namespace

std::string DType::name() const {
  if (!elementType) return "raw " + std::to_string(itemSize) + "-byte ('" + descr + "')";
  return std::string(entryFor(elementType.kind())->name);
}

namespace {

// numpy writes headers of a few hundred bytes (np.load refuses more than
// 10000 by default); a larger claim means the file is not what it seems.
constexpr size_t kMaxHeaderLength = 1 << 20;

// The size of the magic, version and header of a .npy file whose first
// bytes are `prefix` (at least kMagic.size() + 6 of them when there are).
Expected<size_t> preambleSize(std::string_view prefix) {
  if (!prefix.starts_with(kMagic) || prefix.size() < kMagic.size() + 2)
    return error("not a .npy file (it does not start with \\x93NUMPY)");
  unsigned major = static_cast<uint8_t>(prefix[kMagic.size()]);
  size_t lengthBytes = major == 1 ? 2 : major == 2 || major == 3 ? 4 : 0;
  if (lengthBytes == 0) return error("unsupported .npy format version " + std::to_string(major));
  size_t headerStart = kMagic.size() + 2 + lengthBytes;
  if (prefix.size() < headerStart) return error("truncated .npy header");
  size_t headerLength = readLittleEndian(prefix, kMagic.size() + 2, lengthBytes);
  if (headerLength > kMaxHeaderLength)
    return error("the .npy header claims " + std::to_string(headerLength) + " bytes (numpy writes a few hundred)");
  return headerStart + headerLength;
}

// An array as its header describes it, without its data yet.
struct Layout {
  Array array;
  bool bigEndian = false;
  bool fortranOrder = false;
  size_t dataBytes = 0;
};

// Reads the header of `preamble`, the file's first preambleSize() bytes.
Expected<Layout> describe(std::string_view preamble) {
  size_t headerStart = kMagic.size() + 2 + (preamble[kMagic.size()] == 1 ? 2 : 4);
  KILN_ASSIGN_OR_RETURN(Header header, HeaderParser(preamble.substr(headerStart)).parse());
  Layout layout;
  KILN_ASSIGN_OR_RETURN(layout.array.dtype, parseDescr(header.descr, layout.bigEndian));
  layout.array.shape = header.shape;
  layout.fortranOrder = header.fortranOrder;
  int64_t count = 1;
  for (int64_t d : header.shape) {
    if (d != 0 && count > INT64_MAX / d / std::max(layout.array.dtype.itemSize, 1u))
      return error("shape " + pythonTuple(header.shape) + " is too large");
    count *= d;
  }
  layout.dataBytes = static_cast<size_t>(count) * layout.array.dtype.itemSize;
  return layout;
}

Status wrongDataSize(const Layout& layout, const std::string& has) {
  return error("a " + layout.array.dtype.name() + " array of shape " + pythonTuple(layout.array.shape) + " needs " +
               std::to_string(layout.dataBytes) + " data bytes, the file has " + has);
}

// The array of `layout` with its data, `data` (layout.dataBytes of them).
Array finish(Layout layout, std::vector<uint8_t> data) {
  Array& array = layout.array;
  array.data = std::move(data);
  if (layout.bigEndian && array.dtype.itemSize > 1) {
    bool isComplex = array.dtype.elementType && array.dtype.elementType.isComplex();
    byteSwap(array.data, isComplex ? array.dtype.itemSize / 2 : array.dtype.itemSize);
  }
  if (layout.fortranOrder && array.shape.size() > 1)
    array.data = fortranToRowMajor(array.data, array.shape, array.dtype.itemSize);
  return std::move(array);
}

// Reads up to `n` bytes of `in` onto the end of `out`; how many it read.
template <typename Bytes>
size_t readUpTo(std::FILE* in, size_t n, Bytes& out) {
  size_t start = out.size();
  out.resize(start + n);
  size_t got = std::fread(out.data() + start, 1, n, in);
  out.resize(start + got);
  return got;
}

}  // namespace

Expected<Array> decode(std::string_view bytes) {
  KILN_ASSIGN_OR_RETURN(size_t dataStart, preambleSize(bytes));
  if (bytes.size() < dataStart) return error("truncated .npy header");
  KILN_ASSIGN_OR_RETURN(Layout layout, describe(bytes.substr(0, dataStart)));
  std::string_view payload = bytes.substr(dataStart);
  if (payload.size() != layout.dataBytes) return wrongDataSize(layout, std::to_string(payload.size()));
  return finish(std::move(layout), std::vector<uint8_t>(payload.begin(), payload.end()));
}

// Reads the preamble first and then only as many bytes as the header
// declares, so that a file that is not .npy (a directory, /dev/zero, a
// huge file) fails at once instead of being read whole.
Expected<Array> readFile(const std::string& path) {
  auto fail = [&](const Status& s) { return error(path + ": " + s.diag().message); };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return error("'" + path + "' is a directory, not a .npy file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return error("cannot open '" + path + "': " + std::strerror(errno));
  std::string preamble;
  readUpTo(file.get(), kMagic.size() + 6, preamble);
  Expected<size_t> dataStart = preambleSize(preamble);
  if (!dataStart) return fail(dataStart.status());
  if (*dataStart > preamble.size()) readUpTo(file.get(), *dataStart - preamble.size(), preamble);
  if (preamble.size() < *dataStart) return fail(error("truncated .npy header"));
  Expected<Layout> layout = describe(std::string_view(preamble).substr(0, *dataStart));
  if (!layout) return fail(layout.status());
  // A regular file's size is known: check it before reading anything large.
  uintmax_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size && size - *dataStart != layout->dataBytes)
    return fail(wrongDataSize(*layout, std::to_string(size - *dataStart)));
  // Otherwise read in blocks, so that memory grows only with what arrives.
  constexpr size_t kBlock = 1 << 24;
  std::vector<uint8_t> data;
  while (data.size() < layout->dataBytes)
    if (readUpTo(file.get(), std::min(kBlock, layout->dataBytes - data.size()), data) == 0) break;
  if (data.size() < layout->dataBytes) return fail(wrongDataSize(*layout, std::to_string(data.size())));
  if (readUpTo(file.get(), 1, data) != 0) return fail(wrongDataSize(*layout, "more"));
  return finish(std::move(*layout), std::move(data));
}

Expected<std::vector<uint8_t>> toStorage(const Array& array, Type expected) {
  Type element = expected.elementType();
  Type stored = element.isQuantized() ? element.quant().storageType : element;
  bool typeFits = array.dtype.elementType
                      ? array.dtype.elementType == stored
                      : isMlDtypesOnly(stored.kind()) && array.dtype.itemSize == itemSizeOf(stored);
  bool shapeFits = std::ranges::equal(array.shape, expected.shape());
  if (!typeFits || !shapeFits)
    return error("expected " + expected.str() + ", got " + array.dtype.name() + " array of shape " +
                 pythonTuple(array.shape));

  std::vector<uint8_t> storage = array.data;
  unsigned bits = stored.bitWidth();
  if (stored.isBool()) {
    for (uint8_t& b : storage) b = b != 0;
  } else if (bits < 8) {
    // ml_dtypes keeps sub-byte values in the low bits; kiln sign-extends
    // signed integers to the whole byte.
    uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
    bool signExtend = stored.isSignedInteger();
    for (uint8_t& b : storage) {
      b &= mask;
      if (signExtend && (b >> (bits - 1)) & 1) b |= static_cast<uint8_t>(~mask);
    }
  }
  return storage;
}

Expected<std::string> encode(Type tensorType, std::span<const uint8_t> storage) {
  Type element = tensorType.elementType();
  Type stored = element.isQuantized() ? element.quant().storageType : element;
  const DTypeEntry* entry = entryFor(stored.kind());
  if (!entry) return error("cannot save " + tensorType.str() + " as .npy");

  std::string dict = "{'descr': '" + std::string(entry->descr) +
                     "', 'fortran_order': False, 'shape': " + pythonTuple(tensorType.shape()) + ", }";
  // Version 1.0 has a 16-bit header length; longer headers need version 2.0.
  unsigned lengthBytes = 2;
  std::string header = paddedHeader(dict, kMagic.size() + 2 + lengthBytes);
  if (header.size() > 0xffff) {
    lengthBytes = 4;
    header = paddedHeader(dict, kMagic.size() + 2 + lengthBytes);
  }
  std::string out(kMagic);
  out += static_cast<char>(lengthBytes == 2 ? 1 : 2);  // format version major.minor
  out += '\0';
  for (unsigned i = 0; i < lengthBytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;

  size_t dataStart = out.size();
  out.append(storage.begin(), storage.end());
  unsigned bits = stored.bitWidth();
  if (bits < 8 && !stored.isBool()) {  // back to ml_dtypes' low-bits form
    for (size_t i = dataStart; i < out.size(); ++i)
      out[i] = static_cast<char>(static_cast<uint8_t>(out[i]) & ((1u << bits) - 1));
  }
  return out;
}

Status writeFile(const std::string& path, Type tensorType, std::span<const uint8_t> storage) {
  KILN_ASSIGN_OR_RETURN(std::string bytes, encode(tensorType, storage));
  std::ofstream out(path, std::ios::binary);
  if (!out) return error("cannot write '" + path + "'");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return error("cannot write '" + path + "'");
  return Status::ok();
}

}  // namespace kiln::npy
