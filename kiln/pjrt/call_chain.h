// The chain of calls that led to an op, for errors about a program JAX
// compiled.
//
// JAX records each op's Python location as a call-site location: the
// frames of the function being traced, innermost first
// (`"ffi_call"(callsite("unknown"("m.py":4:11) at "body"("m.py":8:15)))`).
// Frames of the functions that called it are not on the op: they are on
// the op that holds it (a `stablehlo.while` of lax.scan, a `case` of
// lax.cond) and on the `func.call` of its function (a nested jax.jit, a
// scan body), and so on up to @main. kiln's errors name the innermost
// frame (the op's Location); `addCallChain` adds a note for each caller.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

struct Frame {
  Location loc;
  std::string function;  // the Python function the line is in, when JAX named it
  bool operator==(const Frame& o) const { return loc.file == o.loc.file && loc.line == o.loc.line && loc.col == o.loc.col; }
};

// The `"file":line:col` frames of a location's text, in order (innermost first).
std::vector<Frame> framesOf(std::string_view debugLoc);

// The frames leading to `op`: its own, then those of each op holding it
// and of the one `func.call` of each function on the way to the public
// function (stopping at a function called from several places), each frame
// once (the op holding a call and the call name the same line).
std::vector<Frame> callChain(const Module& module, const Operation& op);

// Adds to `diag`, when it is about an op of `module` (the program as read,
// each op with the location JAX recorded), a note for each caller frame of
// that op: "called from here (in <function>)". Nothing when no op of the
// program is at the error's location, or when those that are have different
// chains (a helper called from several places).
void addCallChain(Diagnostic& diag, const Module& module);

// Adds to a run-time `diag` the Python call of the run that failed, as
// jaxlib passes it in PJRT_ExecuteOptions.call_location when
// `jax_send_traceback_to_runtime` is "on" (the calling line, "file:line")
// or "full" (the traceback, "file:line (function)" a line, innermost
// first): a note "the call that failed: <frame>" and, for a traceback, a
// note "called from <frame>" for each outer frame. Nothing for "" (jaxlib's
// default, "off"). The program's own notes (addCallChain) lead to the line
// that traced the function; this one names the call that ran it.
void addCallLocation(Diagnostic& diag, std::string_view callLocation);
bool isCallLocationNote(const Diagnostic& note);

}  // namespace kiln::pjrt
