// Native routines: fast C++ versions of some reference kernels, each made
// for one op instance when the program is compiled (attributes read, index
// mappings and body kinds decided once) so that a run only loops. A native
// routine takes an instance only when it computes exactly what the
// reference kernel computes, bit for bit: the same elements combined in the
// same order with the same rounding. Anything else stays with the reference.
// Two exceptions are held to a stated error bound instead: fft
// (native_fft.cpp), since an O(n log n) transform cannot add in the direct
// DFT's order, and f32 linear algebra (native_linalg.cpp), blocked around
// sgemm in f32 as LAPACK is where the reference substitutes in double.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/interp/instance.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {
class ThreadPool;
}

namespace kiln::cpu {

// The thread pool a native routine may split its work across: the
// executable's, for the duration of a routine step (program.cpp sets it
// around each), else null (the calling thread alone). Routines use it
// rather than OpenMP, whose fork and join waits for every thread of the
// team: on a loaded host a descheduled one held a blocked Cholesky of
// 1024 at 130 ms on two threads against 15 ms on one, where the pool's
// chunks go to whichever thread comes first.
class RoutineThreads {
 public:
  explicit RoutineThreads(ThreadPool* pool) : previous_(slot()) { slot() = pool; }
  ~RoutineThreads() { slot() = previous_; }
  RoutineThreads(const RoutineThreads&) = delete;
  RoutineThreads& operator=(const RoutineThreads&) = delete;
  static ThreadPool* current() { return slot(); }

 private:
  static ThreadPool*& slot() {
    thread_local ThreadPool* pool = nullptr;
    return pool;
  }
  ThreadPool* previous_;
};

struct NativeRoutine {
  std::string name;  // what it does, e.g. "native reduce_window maximum"
  // Runs on operands of the op's own operand types. Null means "not this
  // run" (an index the reference reports as an error, say): the caller
  // runs the reference kernel instead.
  std::function<std::optional<std::vector<interp::Tensor>>(const std::vector<interp::Tensor>&)> run;
};

// Each returns the native routine for `op`, or nothing if it does not take
// this instance.
std::optional<NativeRoutine> nativeReduceWindow(const Operation& op);
std::optional<NativeRoutine> nativeSelectAndScatter(const Operation& op);
std::optional<NativeRoutine> nativeGather(const Operation& op);
std::optional<NativeRoutine> nativeScatter(const Operation& op);
std::optional<NativeRoutine> nativeSort(const Operation& op);
std::optional<NativeRoutine> nativeTopK(const Operation& op);
std::optional<NativeRoutine> nativeFft(const Operation& op);
std::optional<NativeRoutine> nativeRngBitGenerator(const Operation& op);
// cholesky, triangular_solve and the lapack_{spotrf,strsm,sgetrf}_ffi calls on f32.
std::optional<NativeRoutine> nativeLinearAlgebra(const Operation& op);

// A collective (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_permute, collective_broadcast) run over the instance's
// Communicator (native_collectives.cpp): the op's process groups, then each
// operand's bytes moved (and reduced) in place of the rendezvous's whole-
// operand exchange. Every instance of a run decides alike, from the op alone.
struct NativeCollective {
  std::string name;  // "native all_reduce sum", ...
  // Runs as `instance`, whose communicator is set.
  std::function<Expected<std::vector<interp::Tensor>>(std::vector<interp::Tensor>, const interp::Instance&)> run;
};
// The native collective for `op`, or nothing (another op, a reduction body
// that is not one op the communicator combines, quantized zeros, ...).
std::optional<NativeCollective> nativeCollective(const Operation& op);

// The f32 lanes of the widest vectors the routines' hand-vectorized loops
// use on this host (their files are built for any x86-64), at most what
// --cpu_max_isa allows (host_isa.h): 16 on x86-64-v4 (AVX-512), 8 on
// x86-64-v3 (AVX2, FMA), else 0 (the plain loops).
int hostLanes();

// Defines `ret name params` as `body args` compiled for x86-64-v4, for
// x86-64-v3 and for the baseline, the copy picked per call by hostLanes().
// `body` is always_inline, so each copy's loops vectorize for its tier.
#define KILN_PER_TIER(ret, name, body, params, args)                                  \
  [[gnu::target("arch=x86-64-v4")]] ret name##OnV4 params { return body args; }       \
  [[gnu::target("arch=x86-64-v3")]] ret name##OnV3 params { return body args; }       \
  ret name params {                                                                   \
    switch (hostLanes()) {                                                            \
      case 16: return name##OnV4 args;                                                \
      case 8: return name##OnV3 args;                                                 \
      default: return body args;                                                      \
    }                                                                                 \
  }

}  // namespace kiln::cpu
