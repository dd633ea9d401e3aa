#include "kiln/backends/cpu/host_isa.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include <dnnl.h>

#include "kiln/support/flags.h"

namespace kiln::cpu {
namespace {

constexpr std::array<std::pair<std::string_view, CpuIsa>, 4> kNames = {{
    {"sse4.2", CpuIsa::Sse42},
    {"avx2", CpuIsa::Avx2},
    {"avx512", CpuIsa::Avx512},
    {"native", CpuIsa::Native},
}};

// The value of --cpu_max_isa in KILN_FLAGS: its tier, nothing when the flag
// is not given, or an error.
Expected<std::optional<CpuIsa>> capFromFlags() {
  KILN_ASSIGN_OR_RETURN(ParsedFlags flags, parseFlags(kCpuBackend, {}, environmentFlags()));
  const FlagValue* cap = flags.last("--cpu_max_isa");
  if (!cap) return std::optional<CpuIsa>();
  for (const auto& [name, isa] : kNames)
    if (cap->text == name) return std::optional<CpuIsa>(isa);
  return error("KILN_FLAGS: --cpu_max_isa must be one of sse4.2, avx2, avx512, native; got '" + cap->text + "'");
}

CpuIsa hostIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return CpuIsa::Native;
  if (__builtin_cpu_supports("x86-64-v3")) return CpuIsa::Avx2;
  return CpuIsa::Sse42;
}

dnnl_cpu_isa_t oneDnnCap(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Sse42: return dnnl_cpu_isa_sse41;
    case CpuIsa::Avx2: return dnnl_cpu_isa_avx2;
    case CpuIsa::Avx512: return dnnl_cpu_isa_avx512_core_bf16;
    case CpuIsa::Native: break;
  }
  return dnnl_cpu_isa_all;
}

}  // namespace

CpuIsa cpuIsa() {
  static const CpuIsa isa = [] {
    Expected<std::optional<CpuIsa>> cap = capFromFlags();
    CpuIsa host = hostIsa();
    if (!cap.isOk() || !cap->has_value()) return host;
    CpuIsa capped = std::min(host, **cap);
    // Below AVX-512 the host tier is already what oneDNN would pick; a cap
    // at avx512 on an AVX-512 host still takes AMX away.
    if (**cap != CpuIsa::Native) dnnl_set_max_cpu_isa(oneDnnCap(**cap));
    return capped;
  }();
  return isa;
}

Status checkCpuMaxIsaFlag() {
  Expected<std::optional<CpuIsa>> cap = capFromFlags();
  return cap.isOk() ? Status::ok() : cap.takeStatus();
}

std::string_view cpuIsaName(CpuIsa isa) {
  for (const auto& [name, tier] : kNames)
    if (tier == isa) return name;
  return "?";
}

}  // namespace kiln::cpu
