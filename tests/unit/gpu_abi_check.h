// Compile-time comparison of a function pointer kiln declares (to fill by
// dlsym, without the vendor's header) with the vendor header's declaration
// of the symbol: gpu_driver_abi_test (cuda.h) and gpu_cublaslt_abi_test
// (cublasLt.h). Parameters must match type for type, where an enum of the
// header may be an integer of the same size in kiln's, and signedness is
// ignored.
#pragma once

#include <tuple>
#include <type_traits>

namespace kiln::gpu::abi {

// A type with enums (and pointers to them) as same-sized unsigned integers,
// and integers as unsigned. A test may specialize it to map a type kiln
// declares onto the header's.
template <typename T> struct Canonical { using type = T; };
template <typename T> requires std::is_enum_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<std::underlying_type_t<T>>; };
template <typename T> requires std::is_integral_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<T>; };
template <typename T> struct Canonical<T*> { using type = typename Canonical<T>::type*; };
template <typename T> struct Canonical<const T*> { using type = const typename Canonical<T>::type*; };

template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameAbi(R1 (*)(A1...), R2 (*)(A2...)) {
  return sizeof(R1) == sizeof(R2) && sizeof...(A1) == sizeof...(A2) &&
         std::is_same_v<std::tuple<typename Canonical<A1>::type...>, std::tuple<typename Canonical<A2>::type...>>;
}

}  // namespace kiln::gpu::abi

// `Table::member` (kiln's function pointer) against the header's `symbol`.
#define KILN_SAME_ABI(Table, member, symbol) \
  static_assert(::kiln::gpu::abi::sameAbi(decltype(Table::member){}, &::symbol), #symbol)
