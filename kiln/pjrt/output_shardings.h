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

// The shardings of a `main` whose work is one sdy.manual_computation taking
// its operands straight from main's parameters and returning its results
// (shard_map over every mesh axis, as inline_manual_computation makes it
// the per-device program): each such parameter and result gets the
// manual computation's in / out sharding, every other one is replicated.
// nullopt for any other program. Read before that pass inlines the body.
Expected<std::optional<ProgramShardings>> manualComputationShardings(const Module& module, const Operation& main);

// Whether each parameter and result of `main` that states its own
// `sdy.sharding` states `manual`'s: only then may the manual computation's
// body become the per-device program (PJRT hands each device its block of
// the stated sharding). Otherwise the partitioner reshards between them.
Expected<bool> statedShardingsAgree(const Module& module, const Operation& main, const ProgramShardings& manual);

// JAX declares `sdy.mesh @empty_mesh = <[]>` next to a program's mesh for
// values it places without one (a committed single-device argument, such as
// a PRNG key made outside the function): a sharding over a mesh without
// axes is replicated. When the module has one other mesh, each sharding
// over an axis-less mesh (no device ids: not a maximal mesh) is made the
// same replicated sharding over that mesh, and the empty mesh is erased, so
// kiln partitions the program over its one mesh. Returns whether it changed.
bool foldEmptyMeshes(Module& module);

}  // namespace kiln::pjrt
