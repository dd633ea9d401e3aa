// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Element types map to NumPy dtypes as follows:
//   i1 <-> bool, si8..si64 <-> int8..int64, ui8..ui64 <-> uint8..uint64,
//   f16/f32/f64 <-> float16/32/64, complex<f32>/complex<f64> <-> complex64/128;
//   bf16, the f8/f6/f4 types and si2/si4/ui2/ui4 use the dtype names of
//   ml_dtypes ("bfloat16", "float8_e4m3fn", "int4", ...).
// numpy itself saves ml_dtypes arrays with a raw descr ('<V2' for bfloat16,
// '<V1' or '<f1' for the 1-byte types), which loses the type. We therefore
// WRITE the ml_dtypes name as the descr (np.load reads such files once
// ml_dtypes is imported) and READ both the names and those raw descrs; a raw
// array takes its element type from the function parameter it feeds.
// Quantized tensors are stored as their storage integers.
//
// kiln's dense storage differs from NumPy's only in sub-byte integers, which
// kiln keeps sign-extended and ml_dtypes keeps in the low bits of each byte;
// decoding and encoding convert between the two. Big-endian files are
// byte-swapped and Fortran-order files transposed on reading.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

namespace kiln::npy {

// The dtype of a .npy file, as far as kiln understands it.
struct DType {
  std::string descr;  // as written in the header: "<f4", "bfloat16", "<V2"
  // The element type, or null for a raw descr (void, or numpy's 1-byte '<f1').
  Type elementType;
  unsigned itemSize = 0;  // bytes per element

  // "float32", "bfloat16", "raw 2-byte ('<V2')".
  std::string name() const;
};

// A decoded array: row-major, little-endian, NumPy's element encoding.
struct Array {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

// Decodes the contents of a .npy file.
Expected<Array> decode(std::string_view fileBytes);
Expected<Array> readFile(const std::string& path);

// The bytes of `array` in kiln's dense storage layout for tensor type
// `expected`; an error such as "expected tensor<2x3xf32>, got float64 array of
// shape (3,)" when the dtype or shape does not fit.
Expected<std::vector<uint8_t>> toStorage(const Array& array, Type expected);

// The .npy encoding of a tensor of type `tensorType` holding `storage` (kiln's
// dense storage layout).
Expected<std::string> encode(Type tensorType, std::span<const uint8_t> storage);
Status writeFile(const std::string& path, Type tensorType, std::span<const uint8_t> storage);

}  // namespace kiln::npy
