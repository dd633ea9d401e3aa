// Shardings: how a tensor is split over a mesh of devices, in Shardy's terms.
//
// A mesh names its axes and their sizes (`#sdy.mesh<["x"=2, "y"=4]>`); the
// devices are the points of the mesh, numbered row-major (axis 0 major)
// unless `device_ids` lists them. A tensor sharding gives each dimension the
// mesh axes it is split over, major to minor
// (`#sdy.sharding<@mesh, [{"x"}, {"y", ?}]>`): dimension 0 is cut into 2
// blocks, device (x, y) holding block x. `?` leaves a dimension open for
// propagation to add axes; `p<N>` is its priority. Axes no dimension names are
// replicated.
//
// A *sub-axis* `"x":(p)s` is part of axis x: x's size n splits, major to
// minor, into p, s and n / (p x s) (the pre-size p being the product of the
// parts before it), and the sub-axis is the middle one, of s devices. The
// structures below keep an axis reference as a string: a whole axis by its
// name (`x`), a sub-axis as `x:(p)s` (subAxisRef); a mesh axis whose own name
// has that form is meant where one exists (the mesh refineSubAxes builds).
//
// The IR keeps these attributes as verbatim Opaque text; this header reads
// and writes that text. LLVM-free.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/attributes.h"
#include "kiln/support/diagnostic.h"

namespace kiln {
class Module;
class Operation;
}  // namespace kiln

namespace kiln::sharding {

// A sub-axis reference `x:(preSize)size`, as the structures below keep one.
struct SubAxis {
  std::string axis;
  int64_t preSize = 1;
  int64_t size = 1;
};
// The sub-axis `ref` names; nullopt when `ref` is no `name:(p)s`.
std::optional<SubAxis> parseSubAxisRef(std::string_view ref);
std::string subAxisRef(std::string_view axis, int64_t preSize, int64_t size);

struct MeshAxis {
  std::string name;
  int64_t size = 1;
  bool operator==(const MeshAxis&) const = default;
};

struct Mesh {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> deviceIds;  // empty: 0, 1, ... in row-major order

  int64_t numDevices() const;
  // Index of the axis called `name`, or -1.
  int axisIndex(std::string_view name) const;
  // The size of the axis or sub-axis `ref` names; 1 when the mesh has neither.
  int64_t axisSize(std::string_view ref) const;
  // The coordinate along axis `axis` of the device at row-major position `position`.
  int64_t coordinate(int64_t position, int axis) const;
  bool operator==(const Mesh&) const = default;
};

struct DimSharding {
  std::vector<std::string> axes;  // major to minor
  bool open = false;              // `?`: propagation may add axes
  int64_t priority = -1;          // `p<N>`; -1 when none
  bool operator==(const DimSharding&) const = default;
};

struct TensorSharding {
  std::string meshName;  // the sdy.mesh symbol, without `@`; empty for an inline mesh
  std::optional<Mesh> inlineMesh;
  std::vector<DimSharding> dims;
  std::vector<std::string> replicated;  // axes stated replicated
  std::vector<std::string> unreduced;   // axes over which the value is a partial sum

  // No dimension split over any axis.
  bool isReplicated() const;
  // All axes the dimensions use, in dimension order.
  std::vector<std::string> usedAxes() const;
  bool operator==(const TensorSharding&) const = default;
};

// A fully replicated sharding of a rank-`rank` tensor over mesh `meshName`.
TensorSharding replicated(std::string meshName, int64_t rank);

// Readers of the attribute text. Each accepts the form with its `#sdy.` prefix.
Expected<Mesh> parseMesh(std::string_view text);                   // #sdy.mesh<[...]>
Expected<TensorSharding> parseSharding(std::string_view text);     // #sdy.sharding<@m, [...]>
Expected<std::vector<TensorSharding>> parseShardingPerValue(std::string_view text);  // #sdy.sharding_per_value<[...]>

std::string printMesh(const Mesh& mesh);                   // #sdy.mesh<["x"=2]>
std::string printSharding(const TensorSharding& sharding);  // #sdy.sharding<@m, [{"x"}, {}]>
std::string printShardingPerValue(const std::vector<TensorSharding>& shardings);
// The sharding without its `#sdy.sharding` prefix: `<@m, [{"x"}, {}]>`.
std::string printShardingBody(const TensorSharding& sharding);

// The attribute of a sharding, as the IR stores it.
Attribute toAttribute(const TensorSharding& sharding);
Attribute toAttribute(const std::vector<TensorSharding>& shardings);  // sharding_per_value

// The mesh a sharding refers to in `module`: its inline mesh, or the
// sdy.mesh symbol it names.
Expected<Mesh> meshOf(const TensorSharding& sharding, const Module& module);
// The sdy.mesh ops of a module, by symbol name.
std::vector<std::pair<std::string, Mesh>> meshesOf(const Module& module);

// Checks that a mesh is well formed: axis sizes of at least 1, axis names
// unique, and `device_ids` (when given) a permutation of 0..numDevices()-1
// (or, for a maximal mesh without axes, one non-negative device id).
Status checkMesh(const Mesh& mesh);

// The axes of a manual_computation's `#sdy<manual_axes{"x", "y"}>`.
Expected<std::vector<std::string>> parseManualAxes(std::string_view text);
std::string printManualAxes(const std::vector<std::string>& axes);

// Checks `sharding` against its mesh and a tensor of shape `shape`: one entry
// per dimension, axes that exist, no axis used twice, sub-axes that are
// proper parts of their axis (pre-size at least 1, size above 1, p x s
// dividing the axis, not the whole axis), that overlap no other axis
// reference and that do not directly follow the sub-axis they extend in a
// dimension (`"x":(1)2, "x":(2)2` is `"x"`, written so), and (when
// `requireDivisible`) each dimension divisible by the product of its axes.
Status checkSharding(const TensorSharding& sharding, const Mesh& mesh, std::span<const int64_t> shape,
                     bool requireDivisible);

}  // namespace kiln::sharding
