// The shardings kiln's partitioner chose for a program's parameters and
// results, as jaxlib asks a compiled executable for them.
//
// `jax.jit(f)(x)` over sharded arrays without `out_shardings` takes the
// results' shardings from the executable (get_output_shardings). jaxlib
// asks plugins of C API 0.91 and later for them through the shardings
// extension (PJRT_Extension_Type_Shardings), each a serialized
// xla.OpSharding; kiln's plugin reports 0.93 and answers it (docs/pjrt.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/gspmd_sharding.h"
#include "kiln/ir/ir.h"
#include "kiln/ir/sharding.h"
#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

// `sharding` of a rank-`rank` tensor over `mesh` as HLO states it:
// replicated, or tiled with each tile's device listed, a device being a
// place in the executable's device assignment (the mesh's device ids, else
// its row-major positions).
Expected<gspmd::HloSharding> hloSharding(const sharding::TensorSharding& sharding, const sharding::Mesh& mesh,
                                         int64_t rank);

// A replicated or tiled (explicit devices) sharding as a serialized
// xla.OpSharding: type REPLICATED, or OTHER with the tile assignment.
std::string opShardingProto(const gspmd::HloSharding& sharding);

struct ProgramShardings {
  std::vector<gspmd::HloSharding> parameters, results;  // one per parameter / result
};

// The shardings of `main` after kiln's spmd pipeline (its `sdy.sharding`
// argument and result attributes, over the module's mesh); nullopt for a
// program without a mesh.
Expected<std::optional<ProgramShardings>> programShardings(const Module& module, const Operation& main);

}  // namespace kiln::pjrt
