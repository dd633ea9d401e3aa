// Reads MLIR bytecode (docs: MLIR "Bytecode Format") carrying VHLO (StableHLO's
// versioned dialect, VhloOps.td / VhloBytecode.cpp) and writes the program as
// StableHLO in MLIR's generic text form, which kiln's text parser then reads.
// Going through text keeps one definition of what every attribute means
// (defaults, struct fields, dense layouts) instead of a second one here.
//
// Every read is bounds-checked; the decoder reports the first problem by
// throwing a BytecodeError, which readBytecode turns into a Status, because a
// corrupt file can fail at any of hundreds of reads deep in the recursion.
#include "kiln/parse/bytecode_reader.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "kiln/parse/parser.h"

namespace kiln {

namespace {

constexpr char kMagic[] = {'M', 'L', '\xef', 'R'};
// Bytecode versions this reader knows (MLIR's kVersion history up to 6).
constexpr uint64_t kMaxBytecodeVersion = 6;
constexpr uint64_t kDialectVersioningVersion = 1;  // dialect names carry a "versioned" flag
constexpr uint64_t kLazyLoadingVersion = 2;         // isolated regions in their own section
constexpr uint64_t kUseListOrderingVersion = 3;     // use-list orders of results and block args
constexpr uint64_t kElideBlockArgLocVersion = 4;    // block args flag their location; op-name count
constexpr uint64_t kNativePropertiesVersion = 5;    // properties section; op names flag "registered"
// Attribute and type nesting, and region nesting, deep enough for any real
// program and shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxDepth = 200;
// The most decoded text per byte of input (plus a base), far above what real
// programs need (types and locations repeated per op).
constexpr uint64_t kTextBytesPerInputByte = 256;
constexpr uint64_t kTextBytesBase = uint64_t{16} << 20;
// Dense i64/i1 attributes up to this many elements are also decoded to values
// (dimension lists, window attributes); bigger ones stay as bytes.
constexpr uint64_t kMaxListElements = 1 << 16;

enum SectionId : uint8_t {
  kString = 0, kDialect = 1, kAttrType = 2, kAttrTypeOffset = 3, kIR = 4,
  kResource = 5, kResourceOffset = 6, kDialectVersions = 7, kProperties = 8, kNumSections = 9,
};

enum OpMask : uint8_t {
  kHasAttrs = 0x01, kHasResults = 0x02, kHasOperands = 0x04, kHasSuccessors = 0x08,
  kHasInlineRegions = 0x10, kHasUseListOrders = 0x20, kHasProperties = 0x40,
};

struct BytecodeError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw BytecodeError{std::move(message)}; }

// A bounds-checked cursor over a byte range.
class Cursor {
 public:
  Cursor(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}
  bool empty() const { return pos_ >= data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  size_t pos() const { return pos_; }

  uint8_t byte() {
    if (empty()) fail("unexpected end of " + what_);
    return static_cast<uint8_t>(data_[pos_++]);
  }
  std::string_view bytes(uint64_t n) {
    if (n > remaining()) fail("a length of " + std::to_string(n) + " runs past the end of " + what_);
    std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // PrefixVarInt: the count of trailing zero bits of the first byte is the
  // number of bytes that follow it.
  uint64_t varint() {
    uint8_t first = byte();
    if (first & 1) return first >> 1;
    if (first == 0) {
      std::string_view b = bytes(8);
      uint64_t v = 0;
      for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
      return v;
    }
    unsigned extra = static_cast<unsigned>(__builtin_ctz(first));
    std::string_view b = bytes(extra);
    uint64_t v = first;
    for (unsigned i = 0; i < extra; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * (i + 1));
    return v >> (extra + 1);
  }
  int64_t svarint() {
    uint64_t v = varint();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  // A count of items each taking at least `minBytes`: bounded by what is left,
  // so a corrupt count cannot make a caller reserve a huge vector.
  uint64_t count(size_t minBytes = 1) {
    uint64_t n = varint();
    if (n > remaining() / std::max<size_t>(minBytes, 1))
      fail("a count of " + std::to_string(n) + " exceeds the size of " + what_);
    return n;
  }
  std::string_view cstring() {
    size_t end = data_.find('\0', pos_);
    if (end == std::string_view::npos) fail("unterminated string in " + what_);
    std::string_view s = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }

 private:
  std::string_view data_;
  std::string what_;
  size_t pos_ = 0;
};

std::string quote(std::string_view s) {
  std::string out = "\"";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += '\\';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A dictionary key: bare when MLIR would print it bare.
std::string keyText(std::string_view s) {
  bool bare = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') bare = false;
  return bare ? std::string(s) : quote(s);
}

std::string joinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// What a decoded attribute is, as far as the VHLO-to-StableHLO conversion
// needs to know; `text` is its StableHLO text.
enum class AK { Other, String, Integer, Bool, Array, Dict, Tensor, Type, Enum, Loc, Unit, ResultAccuracy };

struct Attr {
  AK kind = AK::Other;
  std::string text;
  std::string str;                      // String: the value; Enum: the case name
  int64_t intValue = 0;                 // Integer / Bool
  std::vector<uint64_t> elements;       // Array: attribute indices; Dict: key, value pairs
  std::vector<int64_t> ints;            // Tensor of integers: its values
  bool isDefault = false;               // ResultAccuracy: all default
  bool noneType = false;                // Type: `none`
};

struct TypeInfo {
  std::string text;
  unsigned bits = 0;        // element types: width (for APInt/APFloat reads)
  bool isInteger = false, isUnsigned = false, isBool = false, isFloat = false;
  std::vector<int64_t> shape;  // tensors
  int elementType = -1;        // tensors: index of the element type
};

struct Entry {
  uint64_t dialect;
  uint64_t offset, size;
  bool custom;
};

// The VHLO op versions this reader converts, each with its attributes
// (comma-separated, as VhloOps.td declares them; an op's properties hold them
// sorted by name, by position only).
const std::map<std::string, const char*, std::less<>>& vhloOps() {
  static const std::map<std::string, const char*, std::less<>> table = {
      {"abs_v1", ""}, {"add_v1", ""}, {"and_v1", ""}, {"atan2_v1", ""},
      {"all_gather_v1", "all_gather_dim,replica_groups,channel_id,use_global_device_ids"},
      {"all_gather_v2", "all_gather_dim,replica_groups,channel_id,use_global_device_ids"},
      {"all_reduce_v1", "replica_groups,channel_id,use_global_device_ids"},
      {"all_reduce_v2", "replica_groups,channel_id,use_global_device_ids"},
      {"all_to_all_v1", "split_dimension,concat_dimension,split_count,replica_groups,channel_id"},
      {"all_to_all_v2", "split_dimension,concat_dimension,split_count,replica_groups,channel_id"},
      {"collective_broadcast_v1", "replica_groups,channel_id"},
      {"collective_permute_v1", "source_target_pairs,channel_id"},
      {"partition_id_v1", ""}, {"replica_id_v1", ""},
      {"reduce_scatter_v1", "scatter_dimension,replica_groups,channel_id,use_global_device_ids"},
      {"bitcast_convert_v1", ""}, {"broadcast_in_dim_v1", "broadcast_dimensions"},
      {"broadcast_v1", "broadcast_sizes"}, {"call_v1", "callee"}, {"case_v1", ""},
      {"cbrt_v1", ""}, {"cbrt_v2", "result_accuracy"}, {"ceil_v1", ""},
      {"cholesky_v1", "lower"}, {"clamp_v1", ""}, {"count_leading_zeros_v1", ""},
      {"compare_v1", "comparison_direction,compare_type"}, {"complex_v1", ""},
      {"composite_v1", "name,composite_attributes,decomposition,version"},
      {"composite_v2", "name,composite_attributes,decomposition,version"},
      {"concatenate_v1", "dimension"}, {"constant_v1", "value"}, {"convert_v1", ""},
      {"convolution_v1",
        "window_strides,padding,lhs_dilation,rhs_dilation,window_reversal,input_batch_dimension,"
        "input_feature_dimension,input_spatial_dimensions,kernel_input_feature_dimension,"
        "kernel_output_feature_dimension,kernel_spatial_dimensions,output_batch_dimension,"
        "output_feature_dimension,output_spatial_dimensions,feature_group_count,batch_group_count,"
        "precision_config"},
      {"cosine_v1", ""}, {"cosine_v2", "result_accuracy"}, {"create_token_v1", ""},
      {"custom_call_v1",
        "call_target_name,has_side_effect,backend_config,api_version,called_computations,"
        "operand_layouts,result_layouts,output_operand_aliases"},
      {"divide_v1", ""},
      {"dot_general_v1",
        "lhs_batching_dimensions,rhs_batching_dimensions,lhs_contracting_dimensions,"
        "rhs_contracting_dimensions,precision_config"},
      {"dot_general_v2",
        "lhs_batching_dimensions,rhs_batching_dimensions,lhs_contracting_dimensions,"
        "rhs_contracting_dimensions,precision_config,lhs_precision_type,rhs_precision_type,"
        "accumulation_type,lhs_component_count,rhs_component_count,num_primitive_operations,"
        "allow_imprecise_accumulation"},
      {"dot_v1", "precision_config"}, {"dynamic_slice_v1", "slice_sizes"},
      // The dynamism ops of shape-polymorphic exports.
      {"get_dimension_size_v1", "dimension"}, {"set_dimension_size_v1", "dimension"},
      {"dynamic_broadcast_in_dim_v1", "broadcast_dimensions,known_expanding_dimensions,known_nonexpanding_dimensions"},
      {"dynamic_reshape_v1", ""}, {"dynamic_iota_v1", "iota_dimension"}, {"dynamic_pad_v1", ""},
      {"real_dynamic_slice_v1", ""},
      {"dynamic_update_slice_v1", ""}, {"exponential_minus_one_v1", ""},
      {"exponential_minus_one_v2", "result_accuracy"}, {"exponential_v1", ""},
      {"exponential_v2", "result_accuracy"}, {"fft_v1", "fft_type,fft_length"},
      {"floor_v1", ""}, {"func_v1", "sym_name,function_type,sym_visibility,arg_attrs,res_attrs"},
      {"gather_v1",
        "offset_dims,collapsed_slice_dims,start_index_map,index_vector_dim,slice_sizes,"
        "indices_are_sorted"},
      {"gather_v2",
        "offset_dims,collapsed_slice_dims,operand_batching_dims,start_indices_batching_dims,"
        "start_index_map,index_vector_dim,slice_sizes,indices_are_sorted"},
      {"get_tuple_element_v1", "index"}, {"if_v1", ""}, {"imag_v1", ""},
      {"iota_v1", "iota_dimension"}, {"is_finite_v1", ""}, {"log_plus_one_v1", ""},
      {"log_plus_one_v2", "result_accuracy"}, {"log_v1", ""}, {"log_v2", "result_accuracy"},
      {"logistic_v1", ""}, {"logistic_v2", "result_accuracy"}, {"map_v1", "dimensions"},
      {"maximum_v1", ""}, {"minimum_v1", ""}, {"multiply_v1", ""}, {"negate_v1", ""},
      {"not_v1", ""}, {"optimization_barrier_v1", ""}, {"or_v1", ""},
      {"pad_v1", "edge_padding_low,edge_padding_high,interior_padding"}, {"popcnt_v1", ""},
      {"power_v1", ""}, {"real_v1", ""}, {"reduce_precision_v1", "exponent_bits,mantissa_bits"},
      {"reduce_v1", "dimensions"},
      {"reduce_window_v1", "window_dimensions,window_strides,base_dilations,window_dilations,padding"},
      {"remainder_v1", ""}, {"reshape_v1", ""}, {"return_v1", ""},
      {"reverse_v1", "dimensions"}, {"rng_bit_generator_v1", "rng_algorithm"},
      {"round_nearest_afz_v1", ""}, {"round_nearest_even_v1", ""}, {"rsqrt_v1", ""},
      {"rsqrt_v2", "result_accuracy"},
      {"scatter_v1",
        "update_window_dims,inserted_window_dims,scatter_dims_to_operand_dims,index_vector_dim,"
        "indices_are_sorted,unique_indices"},
      {"scatter_v2",
        "update_window_dims,inserted_window_dims,input_batching_dims,scatter_indices_batching_dims,"
        "scatter_dims_to_operand_dims,index_vector_dim,indices_are_sorted,unique_indices"},
      {"select_and_scatter_v1", "window_dimensions,window_strides,padding"},
      {"select_v1", ""}, {"shift_left_v1", ""}, {"shift_right_arithmetic_v1", ""},
      {"shift_right_logical_v1", ""}, {"sign_v1", ""}, {"sine_v1", ""},
      {"sine_v2", "result_accuracy"}, {"slice_v1", "start_indices,limit_indices,strides"},
      {"sort_v1", "dimension,is_stable"}, {"sqrt_v1", ""}, {"sqrt_v2", "result_accuracy"},
      {"subtract_v1", ""}, {"tan_v1", ""}, {"tan_v2", "result_accuracy"}, {"tanh_v1", ""},
      {"tanh_v2", "result_accuracy"}, {"transpose_v1", "permutation"},
      {"triangular_solve_v1", "left_side,lower,unit_diagonal,transpose_a"}, {"tuple_v1", ""},
      {"while_v1", ""}, {"xor_v1", ""},
  };
  return table;
}

// Attributes that StableHLO holds as `array<i64: ...>` while VHLO holds a
// tensor of i64.
bool isI64ArrayAttr(std::string_view name) {
  static const std::set<std::string_view> names = {
      "broadcast_dimensions", "broadcast_sizes", "permutation", "dimensions", "start_indices",
      "limit_indices", "strides", "edge_padding_low", "edge_padding_high", "interior_padding",
      "slice_sizes", "window_dimensions", "window_strides", "base_dilations", "window_dilations",
      "lhs_dilation", "rhs_dilation", "fft_length", "known_expanding_dimensions", "known_nonexpanding_dimensions"};
  return names.count(name) != 0;
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  std::string run() {
    Cursor top(data_, "the file");
    if (data_.size() < 4 || std::memcmp(data_.data(), kMagic, 4) != 0) fail("not MLIR bytecode (bad magic)");
    top.bytes(4);
    version_ = top.varint();
    if (version_ > kMaxBytecodeVersion)
      fail("bytecode version " + std::to_string(version_) + " is newer than this reader supports (up to " +
           std::to_string(kMaxBytecodeVersion) + ")");
    producer_ = std::string(top.cstring());
    while (!top.empty()) {
      uint8_t idAndAligned = top.byte();
      uint8_t id = idAndAligned & 0x7f;
      uint64_t length = top.varint();
      if (idAndAligned & 0x80) skipAlignment(top);
      if (id >= kNumSections) fail("unknown section id " + std::to_string(id));
      if (haveSection_[id]) fail("section " + std::to_string(id) + " appears twice");
      haveSection_[id] = true;
      sections_[id] = top.bytes(length);
    }
    for (uint8_t id : {kString, kDialect, kAttrType, kAttrTypeOffset, kIR})
      if (!haveSection_[id]) fail("missing section " + std::to_string(id));
    readStrings();
    readDialects();
    readAttrTypeOffsets();
    if (haveSection_[kProperties]) readProperties();

    Cursor ir(sections_[kIR], "the IR section");
    std::string out;
    valueScopes_.emplace_back();
    readBlockOps(ir, out, /*indent=*/0, /*parentOp=*/"");
    return out;
  }

 private:
  // --- Container --------------------------------------------------------------
  void skipAlignment(Cursor& c) {
    uint64_t alignment = c.varint();
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 4096)
      fail("invalid section alignment " + std::to_string(alignment));
    size_t absolute = static_cast<size_t>(c.pos());
    while (absolute % alignment != 0) {
      if (c.byte() != 0xCB) fail("invalid section padding");
      ++absolute;
    }
  }

  void readStrings() {
    Cursor c(sections_[kString], "the string section");
    uint64_t n = c.count();
    std::vector<uint64_t> lengths(n);
    for (uint64_t i = 0; i < n; ++i) lengths[n - 1 - i] = c.varint();
    strings_.reserve(n);
    for (uint64_t len : lengths) {
      if (len == 0) fail("empty string in the string table");
      std::string_view s = c.bytes(len);
      if (s.back() != '\0') fail("unterminated string in the string table");
      strings_.push_back(s.substr(0, len - 1));
    }
  }

  std::string_view string(uint64_t index) {
    if (index >= strings_.size()) fail("string index " + std::to_string(index) + " out of range");
    return strings_[index];
  }

  void readDialects() {
    Cursor c(sections_[kDialect], "the dialect section");
    uint64_t n = c.count();
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = c.varint();
      if (version_ < kDialectVersioningVersion) {
        dialects_.emplace_back(string(v));
        continue;
      }
      dialects_.emplace_back(string(v >> 1));
      if (v & 1) c.bytes(c.varint());  // the dialect's own version blob; VHLO writes none
    }
    if (version_ >= kElideBlockArgLocVersion) c.varint();  // total op names, a reservation hint
    while (!c.empty()) {
      uint64_t dialect = c.varint();
      if (dialect >= dialects_.size()) fail("dialect index out of range in op names");
      uint64_t numOps = c.count();
      for (uint64_t i = 0; i < numOps; ++i) {
        uint64_t v = c.varint();
        uint64_t nameIndex = version_ >= kNativePropertiesVersion ? v >> 1 : v;
        opNames_.push_back({dialects_[dialect], std::string(string(nameIndex))});
      }
    }
  }

  void readAttrTypeOffsets() {
    Cursor c(sections_[kAttrTypeOffset], "the attribute/type offset section");
    numAttrs_ = c.varint();
    uint64_t numTypes = c.varint();
    if (numAttrs_ > sections_[kAttrType].size() + sections_[kAttrTypeOffset].size() ||
        numTypes > sections_[kAttrType].size() + sections_[kAttrTypeOffset].size())
      fail("attribute/type counts exceed the section sizes");
    uint64_t offset = 0;
    while (!c.empty()) {
      uint64_t dialect = c.varint();
      if (dialect >= dialects_.size()) fail("dialect index out of range in attribute/type offsets");
      uint64_t n = c.count();
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t v = c.varint();
        uint64_t size = v >> 1;
        if (size > sections_[kAttrType].size() - offset) fail("attribute/type entry runs past its section");
        entries_.push_back({dialect, offset, size, (v & 1) != 0});
        offset += size;
      }
    }
    if (entries_.size() != numAttrs_ + numTypes) fail("attribute/type offset table has the wrong number of entries");
    attrs_.resize(numAttrs_);  // null until read: one pointer per entry, however big
    attrState_.assign(numAttrs_, 0);
    types_.resize(numTypes);
    typeState_.assign(numTypes, 0);
  }

  void readProperties() {
    Cursor c(sections_[kProperties], "the properties section");
    uint64_t n = c.count();
    for (uint64_t i = 0; i < n; ++i) properties_.push_back(c.bytes(c.varint()));
  }

  // --- Attributes and types ---------------------------------------------------
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) {
      if (++depth > kMaxDepth) fail("attributes, types or regions nested too deeply");
    }
    ~DepthGuard() { --depth; }
  };

  const Attr& attr(uint64_t index) {
    if (index >= numAttrs_) fail("attribute index " + std::to_string(index) + " out of range");
    if (attrState_[index] == 2) return *attrs_[index];
    if (attrState_[index] == 1) fail("attribute " + std::to_string(index) + " refers to itself");
    attrState_[index] = 1;
    DepthGuard guard(depth_);
    const Entry& e = entries_[index];
    Cursor c(sections_[kAttrType].substr(e.offset, e.size), "an attribute");
    const std::string& dialect = dialects_[e.dialect];
    Attr a;
    if (!e.custom) {
      a.text = std::string(c.cstring());
    } else if (dialect == "vhlo") {
      a = readVhloAttr(c);
    } else if (dialect == "builtin") {
      a = readBuiltinAttr(c);
    } else if (dialect == "sdy") {
      a = readSdyAttr(c);
    } else {
      fail("attribute of dialect '" + dialect + "' in a dialect-specific encoding is not supported");
    }
    attrs_[index] = std::make_unique<Attr>(std::move(a));
    attrState_[index] = 2;
    return *attrs_[index];
  }

  const TypeInfo& type(uint64_t index) {
    if (index >= types_.size()) fail("type index " + std::to_string(index) + " out of range");
    if (typeState_[index] == 2) return *types_[index];
    if (typeState_[index] == 1) fail("type " + std::to_string(index) + " refers to itself");
    typeState_[index] = 1;
    DepthGuard guard(depth_);
    const Entry& e = entries_[numAttrs_ + index];
    Cursor c(sections_[kAttrType].substr(e.offset, e.size), "a type");
    const std::string& dialect = dialects_[e.dialect];
    TypeInfo t;
    if (!e.custom) {
      t.text = std::string(c.cstring());
    } else if (dialect == "vhlo") {
      t = readVhloType(c);
    } else if (dialect == "builtin") {
      t = readBuiltinType(c);
    } else {
      fail("type of dialect '" + dialect + "' in a dialect-specific encoding is not supported");
    }
    types_[index] = std::make_unique<TypeInfo>(std::move(t));
    typeState_[index] = 2;
    return *types_[index];
  }

  std::vector<uint64_t> indexList(Cursor& c) {
    uint64_t n = c.count();
    std::vector<uint64_t> v(n);
    for (auto& x : v) x = c.varint();
    return v;
  }
  std::vector<int64_t> svarintList(Cursor& c) {
    uint64_t n = c.count();
    std::vector<int64_t> v(n);
    for (auto& x : v) x = c.svarint();
    return v;
  }

  std::string typeListText(const std::vector<uint64_t>& types) {
    std::string s;
    for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + type(types[i]).text;
    return s;
  }

  static TypeInfo elementType(std::string text, unsigned bits, bool isInt, bool isUnsigned = false) {
    TypeInfo t;
    t.text = std::move(text);
    t.bits = bits;
    t.isInteger = isInt;
    t.isUnsigned = isUnsigned;
    t.isFloat = !isInt;
    return t;
  }

  TypeInfo readVhloType(Cursor& c) {
    uint64_t code = c.varint();
    switch (code) {
      case 0: { TypeInfo t = elementType("i1", 1, true); t.isBool = true; return t; }
      case 1: {
        const TypeInfo& e = type(c.varint());
        TypeInfo t;
        t.text = "complex<" + e.text + ">";
        t.bits = e.bits * 2;
        return t;
      }
      case 2: return elementType("bf16", 16, false);
      case 3: return elementType("f16", 16, false);
      case 4: return elementType("f32", 32, false);
      case 5: return elementType("f64", 64, false);
      case 6: return elementType("f8E4M3FN", 8, false);
      case 7: return elementType("f8E5M2", 8, false);
      case 8: {
        std::vector<uint64_t> inputs = indexList(c), results = indexList(c);
        TypeInfo t;
        t.text = "(" + typeListText(inputs) + ") -> (" + typeListText(results) + ")";
        return t;
      }
      case 9: return elementType("index", 64, true);
      case 10: return elementType("i4", 4, true);
      case 11: return elementType("i8", 8, true);
      case 12: return elementType("i16", 16, true);
      case 13: return elementType("i32", 32, true);
      case 14: return elementType("i64", 64, true);
      case 15: return elementType("ui4", 4, true, true);
      case 16: return elementType("ui8", 8, true, true);
      case 17: return elementType("ui16", 16, true, true);
      case 18: return elementType("ui32", 32, true, true);
      case 19: return elementType("ui64", 64, true, true);
      case 20: case 21: return rankedTensorType(c, code == 21);
      case 22: { TypeInfo t; t.text = "!stablehlo.token"; return t; }
      case 23: { TypeInfo t; t.text = "tuple<" + typeListText(indexList(c)) + ">"; return t; }
      case 27: return elementType("f8E4M3FNUZ", 8, false);
      case 28: return elementType("f8E5M2FNUZ", 8, false);
      case 29: return elementType("f8E4M3B11FNUZ", 8, false);
      case 31: return elementType("i2", 2, true);
      case 32: return elementType("ui2", 2, true, true);
      case 33: { TypeInfo t; t.text = "none"; return t; }
      case 35: return elementType("f8E4M3", 8, false);
      case 36: return elementType("f8E3M4", 8, false);
      case 37: return elementType("f4E2M1FN", 4, false);
      case 38: return elementType("f6E2M3FN", 6, false);
      case 39: return elementType("f6E3M2FN", 6, false);
      case 40: return elementType("f8E8M0FNU", 8, false);
      default:
        fail("VHLO type code " + std::to_string(code) + " is not supported");
    }
  }

  // A ranked tensor type, in VHLO's and the builtin dialect's encoding:
  // [encoding attribute], dimensions, element type.
  TypeInfo rankedTensorType(Cursor& c, bool withEncoding) {
    std::string encoding;
    if (withEncoding) encoding = attr(c.varint()).text;
    TypeInfo t;
    t.shape = svarintList(c);
    t.elementType = static_cast<int>(c.varint());
    const TypeInfo& e = type(static_cast<uint64_t>(t.elementType));
    t.text = "tensor<";
    for (int64_t d : t.shape) t.text += (d == INT64_MIN ? std::string("?") : std::to_string(d)) + "x";
    t.text += e.text;
    if (!encoding.empty()) t.text += ", " + encoding;
    t.text += ">";
    return t;
  }

  TypeInfo readBuiltinType(Cursor& c) {
    uint64_t code = c.varint();
    switch (code) {
      case 0: {
        uint64_t ws = c.varint();
        uint64_t width = ws >> 2, signedness = ws & 3;
        if (width == 0 || width > 64) fail("unsupported integer width " + std::to_string(width));
        std::string prefix = signedness == 1 ? "si" : signedness == 2 ? "ui" : "i";
        TypeInfo t = elementType(prefix + std::to_string(width), static_cast<unsigned>(width), true, signedness == 2);
        t.isBool = width == 1 && signedness == 0;  // builtin i1: a BoolAttr reads `true`, not `-1 : i1`
        return t;
      }
      case 1: return elementType("index", 64, true);
      case 3: return elementType("bf16", 16, false);
      case 4: return elementType("f16", 16, false);
      case 5: return elementType("f32", 32, false);
      case 6: return elementType("f64", 64, false);
      case 9: {  // ComplexType: element type (an sdy op's complex values: psum of complex64 in shard_map)
        const TypeInfo& e = type(c.varint());
        TypeInfo t;
        t.text = "complex<" + e.text + ">";
        t.bits = e.bits * 2;
        return t;
      }
      case 13: case 14: return rankedTensorType(c, code == 14);
      default:
        fail("builtin type code " + std::to_string(code) + " is not supported");
    }
  }

  // APInt of a known width: a byte up to 8 bits, a signed varint up to 64.
  uint64_t readAPInt(Cursor& c, unsigned bits) {
    if (bits == 0 || bits > 64) fail("unsupported integer or float width " + std::to_string(bits));
    uint64_t v = bits <= 8 ? c.byte() : static_cast<uint64_t>(c.svarint());
    return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
  }

  static int64_t signExtend(uint64_t v, unsigned bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    uint64_t sign = uint64_t{1} << (bits - 1);
    return static_cast<int64_t>((v ^ sign) - sign);
  }

  Attr integerAttr(const TypeInfo& t, uint64_t raw) {
    Attr a;
    if (t.isBool) {
      a.kind = AK::Bool;
      a.intValue = raw & 1;
      a.text = a.intValue ? "true" : "false";
      return a;
    }
    if (!t.isInteger) fail("integer attribute of non-integer type " + t.text);
    a.kind = AK::Integer;
    a.intValue = t.isUnsigned ? static_cast<int64_t>(raw) : signExtend(raw, t.bits);
    a.text = (t.isUnsigned ? std::to_string(raw) : std::to_string(a.intValue)) + " : " + t.text;
    return a;
  }

  Attr floatAttr(const TypeInfo& t, Cursor& c) {
    if (!t.isFloat || t.bits == 0) fail("float attribute of non-float type " + t.text);
    uint64_t raw = readAPInt(c, t.bits);
    char buf[40];
    std::snprintf(buf, sizeof buf, "0x%0*" PRIX64, static_cast<int>((t.bits + 3) / 4), raw);
    Attr a;
    a.text = std::string(buf) + " : " + t.text;
    return a;
  }

  Attr enumAttr(const char* name, std::initializer_list<const char*> cases, uint64_t value, uint64_t first = 0) {
    if (value < first || value - first >= cases.size())
      fail(std::string("invalid value ") + std::to_string(value) + " of VHLO enum " + name);
    Attr a;
    a.kind = AK::Enum;
    a.str = cases.begin()[value - first];
    a.text = std::string("#stablehlo<") + name + " " + a.str + ">";
    return a;
  }

  std::string listText(const std::vector<uint64_t>& elements) {
    std::string s = "[";
    for (size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + attr(elements[i]).text;
    return s + "]";
  }

  std::string dictText(const std::vector<uint64_t>& pairs) {
    std::string s = "{";
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      const Attr& key = attr(pairs[i]);
      if (key.kind != AK::String) fail("dictionary key is not a string");
      s += (i ? ", " : "") + keyText(key.str) + " = " + attr(pairs[i + 1]).text;
    }
    return s + "}";
  }

  Attr tensorAttr(uint64_t typeIndex, std::string_view blob) {
    const TypeInfo& t = type(typeIndex);
    if (t.elementType < 0) fail("dense attribute of non-tensor type " + t.text);
    const TypeInfo& e = type(static_cast<uint64_t>(t.elementType));
    uint64_t n = 1;
    for (int64_t d : t.shape) {
      if (d < 0) fail("dense attribute of dynamic type " + t.text);
      n = d == 0 ? 0 : (n > UINT64_MAX / static_cast<uint64_t>(d) ? UINT64_MAX : n * static_cast<uint64_t>(d));
    }
    Attr a;
    a.kind = AK::Tensor;
    if (e.isBool) {
      // MLIR keeps i1 elements packed eight to a byte; a splat is the single
      // byte 0x00 or 0xFF.
      bool splat = blob.size() == 1 && (blob[0] == 0 || static_cast<uint8_t>(blob[0]) == 0xFF);
      // n is bounded by the data before (n + 7) could overflow.
      if (!splat && (n > blob.size() * 8 || blob.size() != (n + 7) / 8))
        fail("dense i1 data of " + t.text + " has the wrong size");
      if (splat) {
        a.text = std::string("dense<") + (blob[0] ? "true" : "false") + "> : " + t.text;
        if (n <= kMaxListElements) a.ints.assign(n, blob[0] ? 1 : 0);
        return a;
      }
      static const char* digits = "0123456789ABCDEF";
      std::string hex = "0x";
      for (uint64_t i = 0; i < n; ++i) {
        int64_t bit = (static_cast<uint8_t>(blob[i / 8]) >> (i % 8)) & 1;
        a.ints.push_back(bit);
        hex += '0';
        hex += digits[bit];
      }
      a.text = "dense<\"" + hex + "\"> : " + t.text;
      return a;
    }
    uint64_t elemBytes = (e.bits + 7) / 8;
    if (elemBytes == 0) fail("dense attribute of unsupported element type " + e.text);
    bool splat = blob.size() == elemBytes && n != 1;
    if (!splat && (n > blob.size() / elemBytes || blob.size() != n * elemBytes))
      fail("dense data of " + t.text + " has " + std::to_string(blob.size()) + " bytes");
    // i64 values are what dimension lists need; a splat constant of a huge
    // tensor is not one, and is not expanded.
    if (e.isInteger && elemBytes == 8 && n <= kMaxListElements) {
      for (size_t i = 0; i < blob.size(); i += 8) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<uint8_t>(blob[i + b]);
        a.ints.push_back(static_cast<int64_t>(v));
      }
      if (splat) a.ints.assign(n, a.ints[0]);
    }
    static const char* digits = "0123456789ABCDEF";
    std::string hex = "0x";
    for (unsigned char ch : blob) {
      hex += digits[ch >> 4];
      hex += digits[ch & 15];
    }
    a.text = "dense<\"" + hex + "\"> : " + t.text;
    return a;
  }

  Attr readVhloAttr(Cursor& c) {
    uint64_t code = c.varint();
    Attr a;
    switch (code) {
      case 1:
        a.kind = AK::Array;
        a.elements = indexList(c);
        a.text = listText(a.elements);
        return a;
      case 2:
        a.kind = AK::Bool;
        a.intValue = c.varint() != 0;
        a.text = a.intValue ? "true" : "false";
        return a;
      case 3: return enumAttr("comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}, c.varint());
      case 4:
        return enumAttr("comparison_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}, c.varint());
      case 5: {
        uint64_t v = c.varint();
        if (v > 4) fail("invalid custom_call api_version " + std::to_string(v));
        a.kind = AK::Integer;
        a.intValue = static_cast<int64_t>(v);
        a.text = std::to_string(v) + " : i32";
        return a;
      }
      case 6: {
        uint64_t n = c.count(2);
        for (uint64_t i = 0; i < 2 * n; ++i) a.elements.push_back(c.varint());
        a.kind = AK::Dict;
        a.text = dictText(a.elements);
        return a;
      }
      case 7: return enumAttr("fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}, c.varint());
      case 8: {
        const TypeInfo& t = type(c.varint());
        return floatAttr(t, c);
      }
      case 9: {
        const TypeInfo& t = type(c.varint());
        return integerAttr(t, readAPInt(c, t.bits));
      }
      case 10: {
        std::vector<int64_t> outputTuple = svarintList(c);
        int64_t operandIndex = c.svarint();
        std::vector<int64_t> operandTuple = svarintList(c);
        a.text = "#stablehlo.output_operand_alias<output_tuple_indices = [" + joinInts(outputTuple) +
                 "], operand_index = " + std::to_string(operandIndex) + ", operand_tuple_indices = [" +
                 joinInts(operandTuple) + "]>";
        return a;
      }
      case 11: return enumAttr("precision", {"DEFAULT", "HIGH", "HIGHEST"}, c.varint());
      case 12: return enumAttr("rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}, c.varint());
      case 13: return enumAttr("rng_distribution", {"UNIFORM", "NORMAL"}, c.varint(), 1);
      case 14:
        a.kind = AK::String;
        a.str = std::string(string(c.varint()));
        a.text = quote(a.str);
        return a;
      case 15: {
        uint64_t typeIndex = c.varint();
        std::string_view blob = c.bytes(c.varint());
        return tensorAttr(typeIndex, blob);
      }
      case 16: return enumAttr("transpose", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}, c.varint());
      case 17: {
        const TypeInfo& t = type(c.varint());
        a.kind = AK::Type;
        a.text = t.text;
        a.noneType = t.text == "none";
        return a;
      }
      case 18: {
        std::vector<int64_t> bounds = svarintList(c);
        a.text = "#stablehlo.bounds<";
        for (size_t i = 0; i < bounds.size(); ++i)
          a.text += (i ? ", " : "") + (bounds[i] == INT64_MIN ? std::string("?") : std::to_string(bounds[i]));
        a.text += ">";
        return a;
      }
      case 19: return enumAttr("result_accuracy_mode", {"DEFAULT", "HIGHEST", "TOLERANCE"}, c.varint());
      case 20: {
        TypeInfo f64 = elementType("f64", 64, false);
        Attr atol = floatAttr(f64, c), rtol = floatAttr(f64, c);
        int64_t ulps = c.svarint();
        const Attr& mode = attr(c.varint());
        if (mode.kind != AK::Enum) fail("result accuracy mode is not an enum");
        a.kind = AK::ResultAccuracy;
        a.isDefault = atol.text == "0x0000000000000000 : f64" && rtol.text == atol.text && ulps == 0 &&
                      mode.str == "DEFAULT";
        a.text = "#stablehlo.result_accuracy<atol = " + atol.text.substr(0, atol.text.find(' ')) +
                 ", rtol = " + rtol.text.substr(0, rtol.text.find(' ')) + ", ulps = " + std::to_string(ulps) +
                 ", mode = #stablehlo.result_accuracy_mode<" + mode.str + ">>";
        return a;
      }
      default:
        fail("VHLO attribute code " + std::to_string(code) + " is not supported");
    }
  }

  Attr readBuiltinAttr(Cursor& c) {
    uint64_t code = c.varint();
    Attr a;
    switch (code) {
      case 0:
        a.kind = AK::Array;
        a.elements = indexList(c);
        a.text = listText(a.elements);
        return a;
      case 1: {
        uint64_t n = c.count(2);
        for (uint64_t i = 0; i < 2 * n; ++i) a.elements.push_back(c.varint());
        a.kind = AK::Dict;
        a.text = dictText(a.elements);
        return a;
      }
      case 2:
        a.kind = AK::String;
        a.str = std::string(string(c.varint()));
        a.text = quote(a.str);
        return a;
      case 4:
        a.text = "@" + keyText(attr(c.varint()).str);
        return a;
      case 6:
        a.kind = AK::Type;
        a.text = type(c.varint()).text;
        return a;
      case 7:
        a.kind = AK::Unit;
        a.text = "unit";
        return a;
      case 8: {
        const TypeInfo& t = type(c.varint());
        return integerAttr(t, readAPInt(c, t.bits));
      }
      case 9: {
        const TypeInfo& t = type(c.varint());
        return floatAttr(t, c);
      }
      case 10: {  // CallSiteLoc: callee, caller
        std::string callee = locBody(c.varint());
        std::string caller = locBody(c.varint());
        return loc("callsite(" + callee + " at " + caller + ")");
      }
      case 11: {  // FileLineColLoc: filename, line, column
        std::string file = attr(c.varint()).str;
        uint64_t line = c.varint(), col = c.varint();
        return loc(quote(file) + ":" + std::to_string(line) + ":" + std::to_string(col));
      }
      case 12: case 13: {  // FusedLoc (13: with metadata)
        std::vector<uint64_t> locs = indexList(c);
        std::string s = "fused";
        if (code == 13) s += "<" + attr(c.varint()).text + ">";
        s += "[";
        for (size_t i = 0; i < locs.size(); ++i) s += (i ? ", " : "") + locBody(locs[i]);
        return loc(s + "]");
      }
      case 14: {  // NameLoc: name, child
        std::string name = attr(c.varint()).str;
        std::string child = locBody(c.varint());
        return loc(quote(name) + (child == "unknown" ? "" : "(" + child + ")"));
      }
      case 15: return loc("unknown");
      case 22: {  // FileLineColRange: filename, count, then line, column, end line, end column
        std::string file = attr(c.varint()).str;
        uint64_t n = c.varint();
        if (n > 4) fail("invalid file location range");
        uint64_t p[4] = {0, 0, 0, 0};
        for (uint64_t i = 0; i < n; ++i) p[i] = c.varint();
        std::string s = quote(file) + ":" + std::to_string(p[0]);
        if (n >= 2) s += ":" + std::to_string(p[1]);
        if (n == 3) s += " to :" + std::to_string(p[2]);
        if (n == 4) s += " to " + std::to_string(p[2]) + ":" + std::to_string(p[3]);
        return loc(s);
      }
      case 16:
        fail("dense_resource attributes (data in the resource section) are not supported");
      case 18: {  // DenseIntOrFPElementsAttr: type, raw data (in discardable attributes, e.g. a maximal
                  // mesh's `stablehlo.mesh = {device_ids = dense<0> : tensor<1xi64>}`)
        uint64_t typeIndex = c.varint();
        std::string_view blob = c.bytes(c.varint());
        return tensorAttr(typeIndex, blob);
      }
      default:
        fail("builtin attribute code " + std::to_string(code) + " is not supported");
    }
  }

  // Shardy's encoding (its bytecode.td); the sharding rules JAX attaches to
  // custom calls, kept as the text kiln holds them in (Opaque).
  static std::string sdyFactorName(int64_t index) {
    if (index < 0) fail("negative sdy factor index");
    if (index < 18) return std::string(1, static_cast<char>('i' + index));
    return "z_" + std::to_string(index - 17);
  }

  // Shardy's "axes" list: `{"x", "y":(2)4}`.
  std::string sdyAxes(const std::vector<uint64_t>& axes) {
    std::string s;
    for (size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + attr(axes[i]).str;
    return s;
  }

  Attr readSdyAttr(Cursor& c) {
    uint64_t code = c.varint();
    Attr a;
    switch (code) {
      case 0: {  // ManualAxesAttr: axis names
        std::vector<uint64_t> names = indexList(c);
        a.text = "#sdy<manual_axes{";
        for (size_t i = 0; i < names.size(); ++i) a.text += (i ? ", " : "") + attr(names[i]).text;
        a.text += "}>";
        return a;
      }
      case 1:  // MeshAxisAttr: name, size
        a.str = quote(string(c.varint()));
        a.str += "=" + std::to_string(c.svarint());
        return a;
      case 2: {  // MeshAttr: axes, device ids
        std::vector<uint64_t> axes = indexList(c);
        std::vector<int64_t> deviceIds = svarintList(c);
        a.str = "<[" + sdyAxes(axes) + "]";
        if (!deviceIds.empty()) a.str += ", device_ids=[" + joinInts(deviceIds) + "]";
        a.str += ">";
        a.text = "#sdy.mesh" + a.str;
        return a;
      }
      case 3: {  // SubAxisInfoAttr: pre-size, size
        int64_t preSize = c.svarint();
        a.str = "(" + std::to_string(preSize) + ")" + std::to_string(c.svarint());
        return a;
      }
      case 4: {  // AxisRefAttr: name, optional sub-axis
        a.str = quote(string(c.varint()));
        uint64_t sub = c.varint();
        if (sub & 1) a.str += ":" + attr(sub >> 1).str;
        return a;
      }
      case 5: {  // DimensionShardingAttr: axes, closed, optional priority
        std::vector<uint64_t> axes = indexList(c);
        bool closed = c.byte() != 0;
        uint64_t priority = c.varint();
        a.str = "{" + sdyAxes(axes) + (closed ? "" : axes.empty() ? "?" : ", ?") + "}";
        if (priority & 1) a.str += "p" + std::to_string(priority >> 1);
        return a;
      }
      case 6: case 15: {  // TensorShardingAttr: mesh or its name, dims, replicated (, unreduced)
        const Attr& mesh = attr(c.varint());
        std::vector<uint64_t> dims = indexList(c), replicated = indexList(c), unreduced;
        if (code == 15) unreduced = indexList(c);
        std::string meshText = mesh.text.starts_with("#sdy.mesh") ? "mesh" + mesh.str : mesh.text;
        a.str = "<" + meshText + ", [" + sdyAxes(dims) + "]";
        if (!replicated.empty()) a.str += ", replicated={" + sdyAxes(replicated) + "}";
        if (!unreduced.empty()) a.str += ", unreduced={" + sdyAxes(unreduced) + "}";
        a.str += ">";
        a.text = "#sdy.sharding" + a.str;
        return a;
      }
      case 7: case 16: {  // TensorShardingPerValueAttr
        std::vector<uint64_t> shardings = indexList(c);
        a.text = "#sdy.sharding_per_value<[";
        for (size_t i = 0; i < shardings.size(); ++i) a.text += (i ? ", " : "") + attr(shardings[i]).str;
        a.text += "]>";
        return a;
      }
      case 8: {  // DimMappingAttr: factor indices
        for (int64_t f : svarintList(c)) a.str += sdyFactorName(f);
        return a;
      }
      case 9: {  // TensorMappingAttr: dim mappings
        a.str = "[";
        std::vector<uint64_t> dims = indexList(c);
        for (size_t i = 0; i < dims.size(); ++i) a.str += (i ? ", " : "") + attr(dims[i]).str;
        a.str += "]";
        return a;
      }
      case 10: {  // OpShardingRuleAttr
        std::vector<int64_t> sizes = svarintList(c);
        auto mappings = [&]() {
          std::vector<uint64_t> tensors = indexList(c);
          std::string s = "(";
          for (size_t i = 0; i < tensors.size(); ++i) s += (i ? ", " : "") + attr(tensors[i]).str;
          return s + ")";
        };
        std::string operands = mappings(), results = mappings();
        a.text = "#sdy.op_sharding_rule<" + operands + "->" + results + " {";
        for (size_t i = 0; i < sizes.size(); ++i)
          a.text += (i ? ", " : "") + sdyFactorName(static_cast<int64_t>(i)) + "=" + std::to_string(sizes[i]);
        a.text += "}";
        for (const char* kind : {"reduction", "need_replication", "permutation", "blocked_propagation"}) {
          std::vector<int64_t> factors = svarintList(c);
          if (factors.empty()) continue;
          a.text += std::string(" ") + kind + "={";
          for (size_t i = 0; i < factors.size(); ++i) a.text += (i ? ", " : "") + sdyFactorName(factors[i]);
          a.text += "}";
        }
        if (c.byte() != 0) a.text += ", custom";
        a.text += ">";
        return a;
      }
      default:
        fail("sdy attribute code " + std::to_string(code) + " is not supported");
    }
  }

  static Attr loc(std::string body) {
    Attr a;
    a.kind = AK::Loc;
    a.str = std::move(body);
    a.text = "loc(" + a.str + ")";
    return a;
  }

  std::string locBody(uint64_t index) {
    const Attr& a = attr(index);
    if (a.kind != AK::Loc) fail("location attribute expected");
    return a.str;
  }

  // --- VHLO to StableHLO ------------------------------------------------------
  std::vector<int64_t> i64List(const Attr& a, std::string_view what) {
    if (a.kind != AK::Tensor || (a.ints.empty() && a.text.find("tensor<0x") == std::string::npos))
      fail(std::string(what) + " is not a tensor of i64");
    return a.ints;
  }

  std::string i64Array(const Attr& a, std::string_view what) {
    return "array<i64" + std::string(a.ints.empty() ? "" : ": ") + joinInts(i64List(a, what)) + ">";
  }

  std::string symbolRef(const Attr& a) {
    if (a.kind != AK::String) fail("symbol reference expected, found " + a.text);
    return "@" + keyText(a.str);
  }

  // Converts the attributes of a VHLO op (by name) to StableHLO's.
  void convertAttrs(std::string_view base, std::map<std::string, uint64_t>& in,
                    std::vector<std::pair<std::string, std::string>>& out) {
    auto take = [&](const char* name) -> const Attr* {
      auto it = in.find(name);
      if (it == in.end()) return nullptr;
      const Attr* a = &attr(it->second);
      in.erase(it);
      return a;
    };
    auto list = [&](const char* name) { const Attr* a = take(name); return a ? joinInts(i64List(*a, name)) : ""; };
    if (base == "dot_general") {
      std::string dims;
      auto field = [&](const char* vhloName, const char* name) {
        std::string v = list(vhloName);
        if (!v.empty()) dims += std::string(dims.empty() ? "" : ", ") + name + " = [" + v + "]";
      };
      field("lhs_batching_dimensions", "lhs_batching_dimensions");
      field("rhs_batching_dimensions", "rhs_batching_dimensions");
      field("lhs_contracting_dimensions", "lhs_contracting_dimensions");
      field("rhs_contracting_dimensions", "rhs_contracting_dimensions");
      out.push_back({"dot_dimension_numbers", "#stablehlo.dot<" + dims + ">"});
      for (const char* name : {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                               "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                               "allow_imprecise_accumulation"}) {
        const Attr* a = take(name);
        if (a && !(a->kind == AK::Type && a->noneType))
          fail("dot_general with a dot algorithm is not supported by the bytecode reader");
      }
    } else if (base == "gather" || base == "dynamic_gather") {
      std::string dims;
      for (const char* name : {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                               "start_indices_batching_dims", "start_index_map"}) {
        std::string v = list(name);
        if (!v.empty()) dims += std::string(dims.empty() ? "" : ", ") + name + " = [" + v + "]";
      }
      if (const Attr* a = take("index_vector_dim"))
        dims += std::string(dims.empty() ? "" : ", ") + "index_vector_dim = " + std::to_string(a->intValue);
      out.push_back({"dimension_numbers", "#stablehlo.gather<" + dims + ">"});
    } else if (base == "scatter") {
      std::string dims;
      for (const char* name : {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                               "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"}) {
        std::string v = list(name);
        if (!v.empty()) dims += std::string(dims.empty() ? "" : ", ") + name + " = [" + v + "]";
      }
      if (const Attr* a = take("index_vector_dim"))
        dims += std::string(dims.empty() ? "" : ", ") + "index_vector_dim = " + std::to_string(a->intValue);
      out.push_back({"scatter_dimension_numbers", "#stablehlo.scatter<" + dims + ">"});
    } else if (base == "convolution") {
      auto spatial = [&](const char* name) {
        const Attr* a = take(name);
        return a ? i64List(*a, name) : std::vector<int64_t>{};
      };
      auto scalar = [&](const char* name) -> int64_t {
        const Attr* a = take(name);
        if (!a || a->kind != AK::Integer) fail(std::string("convolution ") + name + " is missing");
        return a->intValue;
      };
      auto layout = [&](int64_t first, char firstName, int64_t second, char secondName,
                        const std::vector<int64_t>& dims) {
        size_t rank = dims.size() + 2;
        std::vector<std::string> slots(rank);
        auto put = [&](int64_t pos, std::string s) {
          if (pos < 0 || static_cast<size_t>(pos) >= rank || !slots[pos].empty())
            fail("invalid convolution dimension numbers");
          slots[pos] = std::move(s);
        };
        put(first, std::string(1, firstName));
        put(second, std::string(1, secondName));
        for (size_t i = 0; i < dims.size(); ++i) put(dims[i], std::to_string(i));
        std::string s = "[";
        for (size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + slots[i];
        return s + "]";
      };
      int64_t ib = scalar("input_batch_dimension"), ifd = scalar("input_feature_dimension");
      std::vector<int64_t> is = spatial("input_spatial_dimensions");
      int64_t ki = scalar("kernel_input_feature_dimension"), ko = scalar("kernel_output_feature_dimension");
      std::vector<int64_t> ks = spatial("kernel_spatial_dimensions");
      int64_t ob = scalar("output_batch_dimension"), of = scalar("output_feature_dimension");
      std::vector<int64_t> os = spatial("output_spatial_dimensions");
      std::string dims = layout(ib, 'b', ifd, 'f', is) + "x" + layout(ki, 'i', ko, 'o', ks) + "->" +
                         layout(ob, 'b', of, 'f', os);
      out.push_back({"dimension_numbers", "#stablehlo.conv<" + dims + ">"});
    }
    // Collectives: VHLO keeps a channel's id (0: none), StableHLO a channel
    // handle; use_global_device_ids is a bool in VHLO, a unit attribute in
    // StableHLO.
    if (const Attr* a = take("channel_id")) {
      if (a->kind != AK::Integer) fail("channel_id is not an integer");
      if (a->intValue != 0)
        out.push_back({"channel_handle", "#stablehlo.channel_handle<handle = " + std::to_string(a->intValue) +
                                             ", type = 0>"});
    }
    if (const Attr* a = take("use_global_device_ids"))
      if (a->kind == AK::Bool && a->intValue) out.push_back({"use_global_device_ids", "unit"});
    // Symbol references are strings in VHLO.
    for (const char* name : {"callee", "decomposition"})
      if (const Attr* a = take(name)) out.push_back({name, symbolRef(*a)});
    if (const Attr* a = take("called_computations")) {
      if (a->kind != AK::Array) fail("called_computations is not an array");
      if (!a->elements.empty()) {
        std::string s = "[";
        for (size_t i = 0; i < a->elements.size(); ++i) s += (i ? ", " : "") + symbolRef(attr(a->elements[i]));
        out.push_back({"called_computations", s + "]"});
      }
    }
    for (auto& [name, index] : in) {
      const Attr& a = attr(index);
      if (isElidedWindowDefault(base, name, a)) continue;
      if (isI64ArrayAttr(name) && a.kind == AK::Tensor) {
        out.push_back({name, i64Array(a, name)});
        continue;
      }
      if (name == "window_reversal" && a.kind == AK::Tensor) {
        // A tensor of i1 in VHLO, a bool array in StableHLO.
        std::string body;
        for (size_t i = 0; i < a.ints.size(); ++i) body += std::string(i ? ", " : "") + (a.ints[i] ? "true" : "false");
        out.push_back({name, "array<i1" + std::string(body.empty() ? "" : ": ") + body + ">"});
        continue;
      }
      if (isElidedDefault(name, a)) continue;
      out.push_back({name, a.text});
    }
    in.clear();
  }

  // The optional window attributes of convolution, reduce_window and
  // select_and_scatter, which VHLO always holds and StableHLO leaves out at
  // their defaults (strides and dilations of 1, no padding, no reversal).
  bool isElidedWindowDefault(std::string_view op, std::string_view name, const Attr& a) {
    if (op != "convolution" && op != "reduce_window" && op != "select_and_scatter") return false;
    if (a.kind != AK::Tensor) return false;
    auto all = [&](int64_t v) {
      return std::all_of(a.ints.begin(), a.ints.end(), [v](int64_t x) { return x == v; });
    };
    if (name == "window_strides" || name == "lhs_dilation" || name == "rhs_dilation" ||
        name == "base_dilations" || name == "window_dilations")
      return all(1);
    if (name == "padding" || name == "window_reversal") return all(0);
    return false;
  }

  // Attributes whose VHLO value is StableHLO's default, which StableHLO leaves
  // out (as the text form then also does).
  bool isElidedDefault(std::string_view name, const Attr& a) {
    if (a.kind == AK::Array && a.elements.empty())
      return name == "precision_config" || name == "arg_attrs" || name == "res_attrs" ||
             name == "called_computations" || name == "operand_layouts" || name == "result_layouts" ||
             name == "output_operand_aliases";
    if (name == "precision_config" && a.kind == AK::Array) {
      for (uint64_t e : a.elements)
        if (attr(e).str != "DEFAULT") return false;
      return true;
    }
    if ((name == "arg_attrs" || name == "res_attrs") && a.kind == AK::Array) {
      for (uint64_t e : a.elements)
        if (!attr(e).elements.empty()) return false;
      return true;
    }
    if (a.kind == AK::Bool && !a.intValue)
      return name == "indices_are_sorted" || name == "unique_indices" || name == "has_side_effect" ||
             name == "is_stable";
    if (name == "compare_type" && a.kind == AK::Enum) return a.str == "NOTYPE";
    if (name == "backend_config" && a.kind == AK::String) return a.str.empty();
    if (name == "api_version" && a.kind == AK::Integer) return a.intValue == 1;
    if (name == "sym_visibility" && a.kind == AK::String) return a.str.empty();
    if (name == "result_accuracy") return a.isDefault;
    return false;
  }

  // --- The IR section ---------------------------------------------------------
  // Values by their bytecode index: each region isolated from above numbers its
  // values from zero; nested regions continue their parent's numbering.
  struct ValueScope {
    std::vector<std::string> values;
    std::vector<size_t> next;
  };

  std::string newValueName() { return "%v" + std::to_string(nextValueName_++); }

  void defineValue(std::string name) {
    ValueScope& s = valueScopes_.back();
    if (s.next.empty() || s.next.back() >= s.values.size()) fail("more values defined than the region declares");
    s.values[s.next.back()++] = std::move(name);
  }

  const std::string& valueRef(uint64_t index) {
    ValueScope& s = valueScopes_.back();
    if (index >= s.values.size() || s.values[index].empty())
      fail("operand refers to value " + std::to_string(index) + ", which is not defined before it");
    return s.values[index];
  }

  void skipUseListOrders(Cursor& c, uint64_t numValues) {
    uint64_t n = numValues > 1 ? c.count() : 1;
    for (uint64_t i = 0; i < n; ++i) {
      if (numValues > 1) c.varint();
      // (count << 1) | isIndexPairs; the count is of indices either way
      // (index pairs take two of them).
      uint64_t indices = c.varint() >> 1;
      if (indices > c.remaining()) fail("use-list order runs past its section");
      for (uint64_t j = 0; j < indices; ++j) c.varint();
    }
  }

  void readBlockOps(Cursor& c, std::string& out, int indent, std::string_view parentOp) {
    uint64_t enc = c.varint();
    uint64_t numOps = enc >> 1;
    if (enc & 1) fail("the top-level block has arguments");
    if (numOps > c.remaining()) fail("op count exceeds the IR section");
    for (uint64_t i = 0; i < numOps; ++i) readOp(c, out, indent, parentOp);
  }

  void readRegion(Cursor& c, std::string& out, int indent, std::string_view opName, bool isolated) {
    DepthGuard guard(depth_);
    uint64_t numBlocks = c.count();
    out += "{\n";
    if (numBlocks == 0) {
      out += std::string(indent, ' ') + "}";
      return;
    }
    uint64_t numValues = c.count();  // each value's type takes a byte at least
    if (isolated) valueScopes_.emplace_back();
    // Index, not reference: nested isolated regions grow valueScopes_.
    size_t scope = valueScopes_.size() - 1;
    size_t start = valueScopes_[scope].values.size();
    valueScopes_[scope].next.push_back(start);
    valueScopes_[scope].values.resize(start + numValues);
    for (uint64_t b = 0; b < numBlocks; ++b) {
      uint64_t enc = c.varint();
      uint64_t numOps = enc >> 1;
      if (numOps > c.remaining()) fail("op count exceeds its section");
      std::string label;
      if (enc & 1) {
        uint64_t numArgs = c.count();
        label = "^bb" + std::to_string(b) + "(";
        for (uint64_t a = 0; a < numArgs; ++a) {
          uint64_t typeIndex = c.varint();
          if (version_ < kElideBlockArgLocVersion) {
            locBody(c.varint());
          } else {
            if (typeIndex & 1) locBody(c.varint());
            typeIndex >>= 1;
          }
          std::string name = newValueName();
          valueTypes_[name] = type(typeIndex).text;
          label += (a ? ", " : "") + name + ": " + valueTypes_[name];
          defineValue(name);
        }
        label += "):";
        if (version_ >= kUseListOrderingVersion && c.byte() != 0) skipUseListOrders(c, numArgs);
      } else if (b > 0) {
        label = "^bb" + std::to_string(b) + ":";
      }
      if (!label.empty()) out += std::string(indent + 2, ' ') + label + "\n";
      for (uint64_t i = 0; i < numOps; ++i) readOp(c, out, indent + 4, opName);
    }
    valueScopes_[scope].values.resize(start);
    valueScopes_[scope].next.pop_back();
    if (isolated) valueScopes_.pop_back();
    out += std::string(indent, ' ') + "}";
  }

  std::string opName(std::string_view dialect, std::string_view name, std::string_view parentOp) {
    if (dialect == "builtin") {
      // jaxlib's serializer for plugins leaves ops of other dialects (sdy)
      // in place and casts between their tensors and VHLO's: an identity.
      if (name == "module" || name == "unrealized_conversion_cast") return "builtin." + std::string(name);
      fail("builtin." + std::string(name) + " is not supported");
    }
    if (dialect == "sdy" && sdyProperties(name)) return "sdy." + std::string(name);
    if (dialect != "vhlo")
      fail("ops of dialect '" + std::string(dialect) + "' are not supported (" + std::string(name) + ")");
    size_t v = name.rfind("_v");
    if (v == std::string_view::npos) fail("vhlo." + std::string(name) + " has no version suffix");
    std::string_view base = name.substr(0, v);
    if (!vhloOps().count(name)) {
      for (int next = 1; next < 10; ++next)
        if (vhloOps().count(std::string(base) + "_v" + std::to_string(next)))
          fail("vhlo." + std::string(name) + ": version " + std::string(name.substr(v + 2)) + " of " +
               std::string(base) + " is not supported by this reader (artifact produced by " + producer_ + ")");
      fail("vhlo." + std::string(name) + " is not supported by this reader (artifact produced by " + producer_ + ")");
    }
    if (base == "func") return "func.func";
    if (base == "call") return "func.call";
    if (base == "return") return parentOp == "func.func" ? "func.return" : "stablehlo.return";
    return "stablehlo." + std::string(base);
  }

  // The properties of the sdy ops kiln reads (null for any other sdy op).
  static const char* sdyProperties(std::string_view op) {
    if (op == "mesh") return "sym_name,mesh";
    if (op == "sharding_constraint" || op == "reshard") return "sharding";
    if (op == "sharding_group") return "group_id";
    if (op == "propagation_barrier") return "allowed_direction";
    if (op == "manual_computation") return "in_shardings,out_shardings,manual_axes";
    if (op == "return") return "";
    return nullptr;
  }

  void readOp(Cursor& c, std::string& out, int indent, std::string_view parentOp) {
    uint64_t nameIndex = c.varint();
    if (nameIndex >= opNames_.size()) fail("op name index out of range");
    const auto& [dialect, vhloName] = opNames_[nameIndex];
    std::string name = opName(dialect, vhloName, parentOp);
    uint8_t mask = c.byte();
    std::string location = attr(c.varint()).text;

    std::map<std::string, uint64_t> attrs;  // VHLO attribute name -> index
    std::vector<std::pair<std::string, std::string>> converted;
    if (mask & kHasAttrs) {
      const Attr& dict = attr(c.varint());
      if (dict.kind != AK::Dict) fail(name + ": attribute dictionary expected");
      for (size_t i = 0; i + 1 < dict.elements.size(); i += 2) attrs[attr(dict.elements[i]).str] = dict.elements[i + 1];
    }
    if (mask & kHasProperties) {
      uint64_t p = c.varint();
      if (p >= properties_.size()) fail(name + ": properties index out of range");
      Cursor pc(properties_[p], "the properties of " + name);
      if (dialect == "builtin") {
        // builtin.module: optional sym_name and sym_visibility. (Ops of the
        // other dialects hold required attributes only.)
        for (const char* field : {"sym_name", "sym_visibility"}) {
          uint64_t v = pc.varint();
          if (v & 1) attrs[field] = v >> 1;
        }
      } else {
        std::vector<std::string> names;
        std::string_view list = dialect == "sdy" ? sdyProperties(vhloName) : vhloOps().at(vhloName);
        while (!list.empty()) {
          size_t comma = list.find(',');
          names.emplace_back(list.substr(0, comma));
          list = comma == std::string_view::npos ? "" : list.substr(comma + 1);
        }
        std::sort(names.begin(), names.end());
        for (const std::string& field : names) attrs[field] = pc.varint();
      }
      if (!pc.empty()) fail(vhloName + ": properties hold more attributes than this reader knows");
    }
    std::string_view base = std::string_view(vhloName).substr(0, vhloName.rfind("_v"));
    if (dialect == "vhlo") convertAttrs(base, attrs, converted);
    else
      for (auto& [k, v] : attrs) converted.push_back({k, attr(v).text});

    std::vector<uint64_t> resultTypes, operands;
    if (mask & kHasResults) resultTypes = indexList(c);
    if (mask & kHasOperands) operands = indexList(c);
    if (mask & kHasSuccessors) fail(name + ": successor blocks are not supported");
    if ((mask & kHasUseListOrders) && version_ >= kUseListOrderingVersion) skipUseListOrders(c, resultTypes.size());

    if (name == "builtin.unrealized_conversion_cast") {
      if (operands.size() != 1 || resultTypes.size() != 1 || (mask & kHasInlineRegions))
        fail("builtin.unrealized_conversion_cast: only a cast of one value is supported");
      const std::string& value = valueRef(operands[0]);
      if (type(resultTypes[0]).text != valueTypes_.at(value))
        fail("builtin.unrealized_conversion_cast from " + valueTypes_.at(value) + " to " +
             type(resultTypes[0]).text + " is not supported");
      defineValue(value);
      return;
    }

    // The generic form spells out operand types, which the bytecode keeps
    // only with the values' definitions.
    std::string operandText, operandTypes;
    for (size_t i = 0; i < operands.size(); ++i) {
      const std::string& value = valueRef(operands[i]);
      operandText += (i ? ", " : "") + value;
      operandTypes += (i ? ", " : "") + valueTypes_.at(value);
    }

    std::string line = std::string(indent, ' ');
    std::string resultName;
    if (!resultTypes.empty()) {
      resultName = "%r" + std::to_string(nextValueName_++);
      line += resultName + (resultTypes.size() > 1 ? ":" + std::to_string(resultTypes.size()) : "") + " = ";
    }
    line += quote(name) + "(" + operandText + ")";
    // Results are numbered before the values of the op's regions.
    for (size_t i = 0; i < resultTypes.size(); ++i) {
      std::string ref = resultTypes.size() > 1 ? resultName + "#" + std::to_string(i) : resultName;
      valueTypes_[ref] = type(resultTypes[i]).text;
      defineValue(ref);
    }
    std::string regions;
    if (mask & kHasInlineRegions) {
      uint64_t enc = c.varint();
      uint64_t numRegions = enc >> 1;
      bool isolated = enc & 1;
      if (numRegions > c.remaining()) fail(name + ": region count exceeds its section");
      // The regions of an op that uses no value from outside them (which the
      // writer works out; not an op trait) lie together in one IR section
      // since lazy loading, so that a reader may skip them.
      Cursor* regionCursor = &c;
      std::optional<Cursor> section;
      if (isolated && version_ >= kLazyLoadingVersion) {
        uint8_t id = c.byte();
        if ((id & 0x7f) != kIR) fail(name + ": region section expected");
        uint64_t length = c.varint();
        if (id & 0x80) skipAlignment(c);
        section.emplace(c.bytes(length), "the regions of " + name);
        regionCursor = &*section;
      }
      regions = " (";
      for (uint64_t r = 0; r < numRegions; ++r) {
        if (r) regions += ", ";
        readRegion(*regionCursor, regions, indent, name, isolated);
      }
      regions += ")";
    }
    line += regions;
    if (!converted.empty()) {
      std::sort(converted.begin(), converted.end());
      line += " {";
      for (size_t i = 0; i < converted.size(); ++i)
        line += (i ? ", " : "") + keyText(converted[i].first) + " = " + converted[i].second;
      line += "}";
    }
    std::string results;
    for (size_t i = 0; i < resultTypes.size(); ++i) results += (i ? ", " : "") + type(resultTypes[i]).text;
    line += " : (" + operandTypes + ") -> (" + results + ")";
    line += " " + location;
    // One attribute or location may be referenced by any number of ops, so
    // the text can outgrow the input; a bound on it keeps a crafted file
    // from turning a few bytes into gigabytes.
    textBytes_ += line.size() - regions.size();
    if (textBytes_ > kTextBytesPerInputByte * data_.size() + kTextBytesBase)
      fail("the decoded program would be more than " + std::to_string(kTextBytesPerInputByte) +
           " times the size of the artifact");
    out += line + "\n";
  }

  std::string_view data_;
  uint64_t version_ = 0;
  std::string producer_;
  std::string_view sections_[kNumSections];
  bool haveSection_[kNumSections] = {};
  std::vector<std::string_view> strings_;
  std::vector<std::string> dialects_;
  std::vector<std::pair<std::string, std::string>> opNames_;
  std::vector<Entry> entries_;
  uint64_t numAttrs_ = 0;
  std::vector<std::unique_ptr<Attr>> attrs_;
  std::vector<uint8_t> attrState_;  // 0 unread, 1 being read, 2 read
  std::vector<std::unique_ptr<TypeInfo>> types_;
  std::vector<uint8_t> typeState_;
  std::vector<std::string_view> properties_;
  std::vector<ValueScope> valueScopes_;
  std::unordered_map<std::string, std::string> valueTypes_;
  uint64_t nextValueName_ = 0;
  uint64_t textBytes_ = 0;
  int depth_ = 0;
};

}  // namespace

bool isBytecode(std::string_view data) {
  return data.size() >= 4 && std::memcmp(data.data(), kMagic, 4) == 0;
}

Expected<std::string> bytecodeToText(std::string_view data, std::string_view filename) {
  try {
    return Reader(data).run();
  } catch (const BytecodeError& e) {
    return error(std::string(filename) + ": invalid StableHLO bytecode: " + e.message);
  }
}

namespace {

// The first `"file":line:col` in a location's text: for a call-site location
// the innermost frame, where JAX records the user's source line.
Location sourceLocation(std::string_view debugLoc) {
  for (size_t open = debugLoc.find('"'); open != std::string_view::npos; open = debugLoc.find('"', open + 1)) {
    size_t close = debugLoc.find('"', open + 1);
    if (close == std::string_view::npos) break;
    unsigned line = 0, col = 0;
    int consumed = 0;
    std::string rest(debugLoc.substr(close + 1, 32));
    if (std::sscanf(rest.c_str(), ":%u:%u%n", &line, &col, &consumed) == 2 && consumed > 0 && line > 0)
      return Location{internFileName(debugLoc.substr(open + 1, close - open - 1)), line, col};
    open = close;
  }
  return Location{};
}

}  // namespace

Expected<std::unique_ptr<Module>> readBytecode(std::string_view data, std::string_view filename) {
  KILN_ASSIGN_OR_RETURN(std::string text, bytecodeToText(data, filename));
  Expected<std::unique_ptr<Module>> module = parseModule(text, std::string(filename) + " (decoded bytecode)");
  if (!module)
    return error(std::string(filename) + ": invalid StableHLO bytecode: " + module.status().diag().message);
  // Positions in the decoded text mean nothing to a user: diagnostics point
  // at the source line JAX recorded, or nowhere.
  (*module)->op().walk([](Operation& op) { op.setLoc(sourceLocation(op.debugLoc())); });
  return module;
}

Expected<std::unique_ptr<Module>> parseProgram(std::string_view textOrBytecode, std::string_view filename) {
  return isBytecode(textOrBytecode) ? readBytecode(textOrBytecode, filename) : parseModule(textOrBytecode, filename);
}

}  // namespace kiln
