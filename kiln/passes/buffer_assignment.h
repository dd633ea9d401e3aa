// Buffer assignment: which memory each value of a function lives in.
//
// An analysis, not a rewrite. Over the current op order of a block it computes
// each value's live range, then gives every value that owns storage a buffer:
// the buffer of an operand it may overwrite in place, a dead buffer it fits in
// (best fit), or a new one; finally it packs the executable's own buffers into
// one arena. docs/memory.md describes the model and its rules; the short form:
//   - a value is live from the op defining it to the last op using it, uses
//     inside nested regions counting as uses by the top-level op holding them;
//     parameters are live from the start, returned values to the end;
//   - views (reshape, bitcast_convert, tuple, get_tuple_element) own no
//     storage: they keep the storage of their operands alive;
//   - while/if/case bodies are assigned recursively; a body's buffers live in
//     one scratch buffer of the arena while the op runs.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln {

// Bytes of kiln's dense storage of a value of type `t`: elements times
// storageBytes() for tensors, the sum of the elements for tuples, 0 for tokens.
int64_t storageBytes(Type t);

// True if `op`'s results are views of its operands' storage rather than new
// data: reshape (storage is row-major, so a reshape is a bitcast),
// bitcast_convert between element types of whole bytes (a width-changing
// one included: little-endian), tuple and get_tuple_element.
bool isViewOp(const Operation& op);

// The operands whose storage result `resultIndex` of `op` may be computed
// over when the operand dies at `op`, has the result's size and no other
// operand of `op` reads it: every operand of an elementwise op, operand 0 of
// dynamic_update_slice, operand `resultIndex` of scatter and while, and the
// operands a loop fusion reads only at the element it computes
// (fusion::updatesInPlace). Buffer assignment and the cpu planner's run-time
// take-over of a dying input (Step::inPlaceInputs) both follow this rule.
std::vector<unsigned> inPlaceCandidates(const Operation& op, unsigned resultIndex);

// The values that own the storage behind `v` in the block `v` is defined in:
// `v` itself for ordinary values, the storage of the viewed operands for views,
// nothing for the arguments of a nested region (they alias buffers of the op
// that runs the region) or values of size 0.
class StorageRoots {
 public:
  explicit StorageRoots(const Block& block);
  const std::vector<const Value*>& of(const Value* v) const;
  // True if `v` was defined in this block (by one of its ops or as an argument).
  bool inScope(const Value* v) const { return roots_.count(v) != 0; }

 private:
  std::unordered_map<const Value*, std::vector<const Value*>> roots_;
};

struct Buffer {
  enum class Kind {
    Parameter,  // a caller-owned parameter buffer (written only when donated)
    Constant,   // read-only data of the executable; not in the arena
    Temp,       // the executable's own buffer, in the arena
    Scratch,    // a while/if/case body's buffers, while that op runs
  };
  Kind kind = Kind::Temp;
  int64_t size = 0;
  int64_t offset = -1;                // in the arena (Temp and Scratch), else -1
  int firstUse = 0, lastUse = 0;      // positions in the schedule (-1 = before the first op)
  std::vector<const Value*> values;   // the values stored here, in definition order
  int parameter = -1;                 // Parameter: the argument number
  bool donated = false;               // Parameter: the caller gave it to the executable
  const Operation* scratchOf = nullptr;  // Scratch: the op whose bodies use it
};

struct BufferAssignment {
  const Block* block = nullptr;
  std::vector<Operation*> order;  // the block's ops in schedule order (terminator last)
  std::vector<Buffer> buffers;
  // Values that own storage -> index in `buffers`. Views map to their root's
  // buffer when they have exactly one root.
  std::unordered_map<const Value*, int> bufferOf;
  // A donated parameter paired with the output it should hold at the end.
  struct Alias {
    int parameter;
    int output;
    bool realized;  // the output was computed into the parameter's buffer
  };
  std::vector<Alias> aliases;
  // Assignments of the bodies of while/if/case ops, one per region block.
  // Their offsets are relative to the op's Scratch buffer.
  std::unordered_map<const Operation*, std::vector<BufferAssignment>> nested;

  int64_t arenaBytes = 0;  // Temp and Scratch buffers packed, offsets 64-byte aligned
  int64_t peakBytes = 0;   // most bytes of live buffers (parameters, results, bodies) at once
  int peakPosition = -1;   // where that happens (-1 = at entry)
  // Sum of the sizes of every value the ops compute and store (not
  // parameters, constants or views), nested bodies included: the memory
  // needed without any reuse.
  int64_t intermediateBytes = 0;
};

// Assigns buffers to the values of `block` for running its ops in `order`
// (a permutation of its ops ending with the terminator; empty = the block's
// current order). The block is a function body (arguments are parameters,
// donated when marked `jax.buffer_donor = true` or `tf.aliasing_output = N`)
// or a while/if/case body (arguments own no storage).
BufferAssignment assignBuffers(const Block& block, std::span<Operation* const> order = {});

// Whether parameter `i` of the func.func `fn` is donated: marked
// `jax.buffer_donor = true` or `tf.aliasing_output = N`.
bool isDonatedParameter(const Operation& fn, unsigned i);

// The function `--stats` and `--memory-report` describe: @main if there is
// one, else the first public function, else the first function; null if none.
Operation* entryFunction(const Module& module);

}  // namespace kiln
