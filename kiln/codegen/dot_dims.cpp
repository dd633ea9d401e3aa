#include "kiln/codegen/dot_dims.h"

#include <set>
#include <string>


namespace kiln::codegen {

Expected<DotDims> dotDims(const Operation& dot) {
  if (dot.name() == "stablehlo.dot")  // lhs's last dim against rhs's first
    return DotDims{{}, {}, {int64_t(dot.operand(0)->type().rank()) - 1}, {0}};
  Attribute numbers = dot.attr("dot_dimension_numbers");
  DotDims d;
  std::vector<int64_t>* fields[] = {&d.lhsBatch, &d.rhsBatch, &d.lhsContracting, &d.rhsContracting};
  const char* names[] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                         "rhs_contracting_dimensions"};
  for (int i = 0; i < 4; ++i) {
    Attribute field = numbers ? numbers.get(names[i]) : Attribute();
    if (!field) continue;
    std::optional<std::vector<int64_t>> list = field.asIntList();
    if (!list)
      return error(dot.loc(), "'" + dot.name() + "' has a malformed " + names[i] + " (" + dot.loc().str() + ")");
    *fields[i] = *list;
  }
  return d;
}

std::vector<int64_t> freeDims(int64_t rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting) {
  std::set<int64_t> used(batch.begin(), batch.end());
  used.insert(contracting.begin(), contracting.end());
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!used.count(d)) free.push_back(d);
  return free;
}

}  // namespace kiln::codegen
