// oneDNN (Debian's build) runs its primitives on OpenMP threads, as many as
// the calling thread's OpenMP setting says. OpenMpThreads sets that for a
// scope -- the executable's thread count around each library call, so
// `--threads 1` means one thread for oneDNN too -- and puts the caller's own
// setting back.
#pragma once

#include <omp.h>

namespace kiln::cpu {

class OpenMpThreads {
 public:
  explicit OpenMpThreads(int n) : previous_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OpenMpThreads() { omp_set_num_threads(previous_); }
  OpenMpThreads(const OpenMpThreads&) = delete;
  OpenMpThreads& operator=(const OpenMpThreads&) = delete;

 private:
  int previous_;
};

}  // namespace kiln::cpu
