// Who takes part in a collective_permute, as every communicator that meets
// its members as one group works it out (the in-process one, the host's
// shared memory across processes). LLVM-free and interpreter-free.
#pragma once

#include <span>
#include <utility>
#include <vector>

namespace kiln::collectives {

// One rank's view of a collective_permute's (source, target) pairs.
struct PermuteRoles {
  // Every rank the pairs name, ascending and without repeats: the group all
  // of them meet in (each computes the same one from the same pairs).
  std::vector<int> named;
  int source = -1;     // the rank whose bytes this one receives; -1: none (it gets zeros)
  bool sends = false;  // whether some pair has this rank as its source
  // Whether the pairs name this rank at all (one that they do not name takes
  // no part: it gets zeros without meeting anyone).
  bool takesPart = false;
};

PermuteRoles permuteRoles(std::span<const std::pair<int, int>> pairs, int rank);

}  // namespace kiln::collectives
