// Host values of the reference interpreter.
//
// A Tensor is a type plus a buffer in kiln's dense storage layout: row-major,
// one element per `Type::storageBytes()` bytes, little-endian, exactly the
// layout of DenseElements attributes (sub-byte integers and floats take one
// byte each, sign-/zero-extended; i1 is a byte holding 0 or 1; complex is two
// components, real first). Copies share the buffer (copy-on-write is the
// caller's business: ops always produce fresh tensors). Buffers kiln
// allocates are 64-byte aligned; `borrow` wraps memory someone else owns
// (the runtime's zero-copy host buffers).
//
// Tokens and tuples are values too: a Tensor whose type is !stablehlo.token
// holds nothing; one of tuple type holds its elements.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kiln/ir/attributes.h"
#include "kiln/ir/types.h"

namespace kiln::interp {

class Tensor {
 public:
  Tensor() = default;
  // A zero-filled tensor of tensor type `type` (or an empty token).
  explicit Tensor(Type type);
  Tensor(Type type, std::vector<uint8_t> bytes);
  // A tensor of `type` whose bytes are left as they are: only for a caller
  // about to write every one of them (the cpu back end's kernel outputs),
  // which then skips zero-filling a buffer it overwrites anyway.
  static Tensor uninitialized(Type type);
  static Tensor tuple(std::vector<Tensor> elements);
  // A tensor over `data` (which must hold the type's dense bytes) without a
  // copy; `owner` is kept alive as long as any copy of the tensor.
  static Tensor borrow(Type type, uint8_t* data, std::shared_ptr<void> owner);
  // From a DenseElements attribute (splats expanded).
  static Tensor fromDense(const Attribute& dense);
  // To a DenseElements attribute (a splat when all elements are equal).
  Attribute toDense() const;

  explicit operator bool() const { return static_cast<bool>(type_); }
  Type type() const { return type_; }
  Type elementType() const { return type_.elementType(); }
  std::span<const int64_t> shape() const { return type_.shape(); }
  int64_t rank() const { return type_.rank(); }
  int64_t numElements() const { return type_.numElements(); }
  std::span<const Tensor> tupleElements() const { return tuple_; }

  // True if the bytes are kiln's own allocation (not borrowed) and no other
  // tensor shares them: the cpu back end may then compute a result into a
  // donated argument.
  bool isSoleOwner() const { return owned_ && data_ && data_.use_count() == 1; }

  uint8_t* bytes() { return data_.get(); }
  const uint8_t* bytes() const { return data_.get(); }
  size_t byteSize() const { return size_; }

  // Row-major linear index of a multi-index, and back.
  int64_t linearIndex(std::span<const int64_t> index) const;
  std::vector<int64_t> multiIndex(int64_t linear) const;

  // Element access by linear index, widened to a common carrier. The getters
  // accept any element type of the matching family; the setters round or
  // truncate to this tensor's element type exactly as a store would (floats
  // round to nearest even, with the format's overflow/NaN rules).
  bool getBool(int64_t i) const;              // i1
  int64_t getInt(int64_t i) const;            // signed ints sign-extended, unsigned zero-extended
  uint64_t getUInt(int64_t i) const;          // raw zero-extended bits of an integer or float
  double getFloat(int64_t i) const;           // any float type (exact in double)
  std::complex<double> getComplex(int64_t i) const;
  void setBool(int64_t i, bool v);
  void setInt(int64_t i, int64_t v);          // wraps to the element width
  void setFloat(int64_t i, double v);         // rounds to the element type
  void setComplex(int64_t i, std::complex<double> v);
  // Copies one element's bytes (same element type).
  void copyElement(int64_t dst, const Tensor& src, int64_t srcIndex);

  // Bitwise equality of type and contents.
  bool operator==(const Tensor& o) const;

 private:
  Type type_;
  std::shared_ptr<uint8_t> data_;
  size_t size_ = 0;
  bool owned_ = false;  // data_ was allocated by kiln (uninitialized), not borrowed
  std::vector<Tensor> tuple_;
};

}  // namespace kiln::interp
