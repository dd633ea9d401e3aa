#include "kiln/support/stack_space.h"

#include <pthread.h>

#include <cstdint>

namespace kiln {

size_t stackSpaceLeft() {
  // The lowest address of this thread's stack (it grows down), found once.
  thread_local uintptr_t stackLow = [] {
    pthread_attr_t attr;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t(0);
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uintptr_t>(addr);
  }();
  // The frame's address, not a local's: under AddressSanitizer a local may
  // live on a fake stack in the heap.
  auto current = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (stackLow == 0 || current < stackLow) return SIZE_MAX;
  return current - stackLow;
}

}  // namespace kiln
