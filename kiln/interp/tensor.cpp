// Host tensors of the reference interpreter (see tensor.h for the layout).
#include "kiln/interp/tensor.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include <sys/mman.h>

#include "kiln/ir/float_formats.h"

namespace kiln::interp {
namespace {

// The element type whose bits are stored: a quantized type stores its
// integer storage type.
Type storedType(Type elementType) {
  return elementType.isQuantized() ? elementType.quant().storageType : elementType;
}

uint64_t readBytes(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned b = 0; b < n; ++b) v |= uint64_t(p[b]) << (8 * b);
  return v;
}

void writeBytes(uint8_t* p, unsigned n, uint64_t v) {
  for (unsigned b = 0; b < n; ++b) p[b] = uint8_t(v >> (8 * b));
}

bool isSignedStorage(Type t) { return t.isSignedInteger() || t.kind() == TypeKind::Index; }

// Element `i` of a buffer of T, for the common formats' fast paths.
template <typename T>
T load(const uint8_t* base, int64_t i) {
  T v;
  std::memcpy(&v, base + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void store(uint8_t* base, int64_t i, T v) {
  std::memcpy(base + i * sizeof(T), &v, sizeof(T));
}

}  // namespace

namespace {

constexpr size_t kAlignment = 64;  // a cache line, and the widest vector register

// Large buffers are recycled. A block fresh from the system page-faults on
// its first touch: a 16 MB result costs ~4000 faults, more time than the
// kernel that computes it. Freed blocks of at least kRecycleBytes wait here
// for the next allocation of the same size (programs run again and again
// allocate the same sizes), up to kMaxCachedBytes in all.
class BlockCache {
 public:
  static constexpr size_t kRecycleBytes = size_t(64) << 10;
  static constexpr size_t kMaxCachedBytes = size_t(1) << 30;

  static BlockCache& instance() {
    static BlockCache* cache = new BlockCache;  // never destroyed: buffers may outlive static destructors
    return *cache;
  }

  uint8_t* take(size_t bytes) {
    if (bytes >= kRecycleBytes) {
      std::lock_guard<std::mutex> lock(mutex_);
      // The most recently freed block of the size: likely still in cache.
      if (auto it = free_.upper_bound(bytes); it != free_.begin() && std::prev(it)->first == bytes) {
        --it;
        uint8_t* block = it->second;
        free_.erase(it);
        cachedBytes_ -= bytes;
        return block;
      }
    }
    return allocate(bytes);
  }

  void give(uint8_t* block, size_t bytes) {
    if (bytes >= kRecycleBytes) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cachedBytes_ + bytes <= kMaxCachedBytes) {
        free_.emplace(bytes, block);
        cachedBytes_ += bytes;
        return;
      }
    }
    std::free(block);
  }

 private:
  // Blocks of kHugePageBytes and more sit on huge pages where the system
  // offers them on request (Linux's transparent huge pages in "madvise"
  // mode, a common default): one TLB entry covers 2 MB instead of 4 KB, which
  // is what a gather of rows scattered over a large table or a transpose
  // walking across rows pays for. NumPy asks for the same on its arrays.
  static uint8_t* allocate(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePageBytes) {
      size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
      if (void* block = std::aligned_alloc(kHugePageBytes, rounded)) {
        madvise(block, rounded, MADV_HUGEPAGE);  // advice: failure leaves ordinary pages
        return static_cast<uint8_t*>(block);
      }
    }
#endif
    auto* block = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, bytes));
    if (!block) throw std::bad_alloc();
    return block;
  }
  static constexpr size_t kHugePageBytes = size_t(2) << 20;

  std::mutex mutex_;
  std::multimap<size_t, uint8_t*> free_;
  size_t cachedBytes_ = 0;
};

}  // namespace

Tensor::Tensor(Type type) : Tensor(uninitialized(type)) {
  if (data_) std::memset(data_.get(), 0, size_);
}

Tensor Tensor::uninitialized(Type type) {
  Tensor t;
  t.type_ = type;
  if (type.isTensor()) {
    t.size_ = size_t(type.numElements()) * storedType(type.elementType()).storageBytes();
    size_t rounded = (std::max<size_t>(t.size_, 1) + kAlignment - 1) / kAlignment * kAlignment;
    uint8_t* block = BlockCache::instance().take(rounded);
    t.data_ = std::shared_ptr<uint8_t>(block, [rounded](uint8_t* p) { BlockCache::instance().give(p, rounded); });
    t.owned_ = true;
  } else if (type.isTuple()) {
    for (Type element : type.tupleTypes()) t.tuple_.push_back(Tensor(element));
  }
  return t;
}

Tensor::Tensor(Type type, std::vector<uint8_t> bytes) : Tensor(type) {
  assert(bytes.size() == size_);
  // (An empty tensor's pointers may be null, which memcpy may not be given: UBSan.)
  if (size_t n = std::min(bytes.size(), size_)) std::memcpy(data_.get(), bytes.data(), n);
}

Tensor Tensor::borrow(Type type, uint8_t* data, std::shared_ptr<void> owner) {
  Tensor t;
  t.type_ = type;
  t.size_ = size_t(type.numElements()) * storedType(type.elementType()).storageBytes();
  t.data_ = std::shared_ptr<uint8_t>(std::move(owner), data);
  return t;
}

Tensor Tensor::tuple(std::vector<Tensor> elements) {
  std::vector<Type> types;
  for (const Tensor& e : elements) types.push_back(e.type());
  Tensor t;
  t.type_ = Type::tuple(types);
  t.tuple_ = std::move(elements);
  return t;
}

namespace {

// All-zero constants of at least this size are pages fresh from the system.
constexpr size_t kZeroPagesBytes = size_t(1) << 20;

// A block of `bytes` zero bytes that takes no memory until written: fresh
// anonymous pages read as zero (the system maps them all to one zero page).
// A splat zero as large as a gradient's table (the zeros a scatter-add or a
// pad starts from) then costs nothing where its reader fills its own result
// (the cpu back end's scatter), rather than the table's size for as long as
// the program lives. Null if the system refuses.
std::shared_ptr<uint8_t> zeroPages(size_t bytes) {
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) return nullptr;
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(block), [bytes](uint8_t* p) { munmap(p, bytes); });
}

}  // namespace

Tensor Tensor::fromDense(const Attribute& dense) {
  Type type = dense.valueType();
  std::span<const uint8_t> data = dense.denseData();
  if (!dense.denseIsSplat()) return Tensor(type, std::vector<uint8_t>(data.begin(), data.end()));
  Tensor t;
  if (std::ranges::all_of(data, [](uint8_t b) { return b == 0; })) {
    size_t size = size_t(type.numElements()) * data.size();
    if (size >= kZeroPagesBytes)
      if (std::shared_ptr<uint8_t> block = zeroPages(size)) {
        t.type_ = type;
        t.size_ = size;
        t.data_ = std::move(block);  // not owned_: nothing computes into a constant
        return t;
      }
  }
  // The element repeated in place (no expanded copy of the whole tensor on the side).
  t = uninitialized(type);
  assert(t.size_ == size_t(type.numElements()) * data.size());
  for (size_t off = 0; off < t.size_; off += data.size()) std::memcpy(t.bytes() + off, data.data(), data.size());
  return t;
}

Attribute Tensor::toDense() const {
  size_t elementBytes = storedType(elementType()).storageBytes();
  std::span<const uint8_t> all(bytes(), size_);
  bool splat = numElements() > 1;
  for (size_t off = elementBytes; splat && off < all.size(); off += elementBytes)
    splat = std::memcmp(all.data(), all.data() + off, elementBytes) == 0;
  if (splat)
    return Attribute::dense(type_, std::vector<uint8_t>(all.begin(), all.begin() + elementBytes),
                            true);
  return Attribute::dense(type_, std::vector<uint8_t>(all.begin(), all.end()));
}

int64_t Tensor::linearIndex(std::span<const int64_t> index) const {
  int64_t linear = 0;
  std::span<const int64_t> dims = shape();
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

std::vector<int64_t> Tensor::multiIndex(int64_t linear) const {
  std::span<const int64_t> dims = shape();
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = linear % dims[d];
    linear /= dims[d];
  }
  return index;
}

bool Tensor::getBool(int64_t i) const { return bytes()[i] != 0; }

int64_t Tensor::getInt(int64_t i) const {
  Type t = storedType(elementType());
  if (t.kind() == TypeKind::SI32) return load<int32_t>(bytes(), i);
  if (t.kind() == TypeKind::SI64) return load<int64_t>(bytes(), i);
  unsigned n = t.storageBytes();
  uint64_t raw = readBytes(bytes() + i * n, n);
  // Sub-byte integers are already sign-/zero-extended to their byte.
  if (isSignedStorage(t) && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~uint64_t(0) << (8 * n);
  return int64_t(raw);
}

uint64_t Tensor::getUInt(int64_t i) const {
  Type t = storedType(elementType());
  unsigned bits = t.bitWidth();
  uint64_t raw = readBytes(bytes() + i * t.storageBytes(), t.storageBytes());
  return bits >= 64 ? raw : raw & ((uint64_t(1) << bits) - 1);
}

double Tensor::getFloat(int64_t i) const {
  Type t = elementType();
  if (t.kind() == TypeKind::F32) return load<float>(bytes(), i);
  if (t.kind() == TypeKind::F64) return load<double>(bytes(), i);
  if (t.isFloat()) {
    unsigned n = t.storageBytes();
    return decodeFloat(t.kind(), readBytes(bytes() + i * n, n));
  }
  if (t.isComplex()) return getComplex(i).real();
  if (t.isUnsignedInteger()) return double(getUInt(i));
  return double(getInt(i));
}

std::complex<double> Tensor::getComplex(int64_t i) const {
  Type t = elementType();
  if (!t.isComplex()) return {getFloat(i), 0.0};
  TypeKind part = t.complexElement().kind();
  unsigned n = t.complexElement().storageBytes();
  const uint8_t* p = bytes() + i * 2 * n;
  return {decodeFloat(part, readBytes(p, n)), decodeFloat(part, readBytes(p + n, n))};
}

void Tensor::setBool(int64_t i, bool v) { bytes()[i] = v ? 1 : 0; }

void Tensor::setInt(int64_t i, int64_t v) {
  Type t = storedType(elementType());
  if (t.kind() == TypeKind::SI32) return store(bytes(), i, static_cast<int32_t>(v));
  if (t.kind() == TypeKind::SI64) return store(bytes(), i, v);
  unsigned bits = t.bitWidth();
  uint64_t raw = uint64_t(v);
  if (bits < 64) {
    raw &= (uint64_t(1) << bits) - 1;
    // Sign-extend sub-byte and narrow signed values into their storage bytes.
    if (isSignedStorage(t) && (raw >> (bits - 1)) & 1) raw |= ~uint64_t(0) << bits;
  }
  unsigned n = t.storageBytes();
  writeBytes(bytes() + i * n, n, raw);
}

void Tensor::setFloat(int64_t i, double v) {
  Type t = elementType();
  if (t.kind() == TypeKind::F32) return store(bytes(), i, static_cast<float>(v));
  if (t.kind() == TypeKind::F64) return store(bytes(), i, v);
  if (t.isComplex()) return setComplex(i, {v, 0.0});
  assert(t.isFloat());
  unsigned n = t.storageBytes();
  writeBytes(bytes() + i * n, n, encodeFloat(t.kind(), v));
}

void Tensor::setComplex(int64_t i, std::complex<double> v) {
  Type t = elementType();
  assert(t.isComplex());
  TypeKind part = t.complexElement().kind();
  unsigned n = t.complexElement().storageBytes();
  uint8_t* p = bytes() + i * 2 * n;
  writeBytes(p, n, encodeFloat(part, v.real()));
  writeBytes(p + n, n, encodeFloat(part, v.imag()));
}

void Tensor::copyElement(int64_t dst, const Tensor& src, int64_t srcIndex) {
  size_t n = storedType(elementType()).storageBytes();
  std::memcpy(bytes() + dst * n, src.bytes() + srcIndex * n, n);
}

bool Tensor::operator==(const Tensor& o) const {
  if (type_ != o.type_ || tuple_ != o.tuple_) return false;
  if (!data_ || !o.data_) return !data_ && !o.data_;  // tokens and tuples hold no buffer
  return size_ == o.size_ && std::memcmp(data_.get(), o.data_.get(), size_) == 0;
}

}  // namespace kiln::interp
