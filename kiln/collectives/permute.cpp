// permuteRoles: the group and the roles of one rank in a collective_permute.
#include "kiln/collectives/permute.h"

#include <algorithm>

namespace kiln::collectives {

PermuteRoles permuteRoles(std::span<const std::pair<int, int>> pairs, int rank) {
  PermuteRoles roles;
  for (auto [from, to] : pairs) {
    roles.named.insert(roles.named.end(), {from, to});
    if (to == rank) roles.source = from;
    if (from == rank) roles.sends = true;
  }
  std::sort(roles.named.begin(), roles.named.end());
  roles.named.erase(std::unique(roles.named.begin(), roles.named.end()), roles.named.end());
  roles.takesPart = std::binary_search(roles.named.begin(), roles.named.end(), rank);
  return roles;
}

}  // namespace kiln::collectives
