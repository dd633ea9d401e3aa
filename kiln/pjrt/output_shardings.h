// The shardings kiln's partitioner chose for a program's parameters and
// results, as jaxlib asks a compiled executable for them.
//
// `jax.jit(f)(x)` over sharded arrays without `out_shardings` takes the
// results' shardings from the executable (get_output_shardings). jaxlib
// 0.10.2 looks for the shardings extension only in plugins of C API 0.91
// and later; for older ones it reads `spmd_output_sharding` and
// `spmd_parameters_shardings` off the HLO module it makes of the optimized
// program (kiln/pjrt/optimized_program.h), which the module attributes
// `mhlo.spmd_output_sharding` and `mhlo.spmd_parameters_shardings` set. So
// kiln writes them there, as HLO sharding text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/ir/sharding.h"
#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

// HLO's text for `sharding` of a rank-`rank` tensor over `mesh`:
// "{replicated}", or "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}"
// whose device numbers are places in the executable's device assignment
// (the mesh's device ids, else its row-major positions).
Expected<std::string> hloShardingText(const sharding::TensorSharding& sharding, const sharding::Mesh& mesh,
                                      int64_t rank);

struct ProgramShardings {
  std::vector<std::string> parameters, results;  // HLO sharding text, one per parameter / result
};

// The shardings of `main` after kiln's spmd pipeline (its `sdy.sharding`
// argument and result attributes, over the module's mesh); nullopt for a
// program without a mesh.
Expected<std::optional<ProgramShardings>> programShardings(const Module& module, const Operation& main);

}  // namespace kiln::pjrt
