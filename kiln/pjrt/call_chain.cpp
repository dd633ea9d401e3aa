#include "kiln/pjrt/call_chain.h"

#include <algorithm>
#include <cstdio>

namespace kiln::pjrt {
namespace {

// The quoted name right before `("file"...` in `"name"("file":1:2)`, or "".
std::string nameBefore(std::string_view text, size_t open) {
  if (open < 3 || text[open - 1] != '(' || text[open - 2] != '"') return "";
  size_t start = text.rfind('"', open - 3);
  return start == std::string_view::npos ? "" : std::string(text.substr(start + 1, open - 3 - start));
}

const Operation* callerOf(const Module& module, const Operation& fn) {
  Attribute name = fn.attr("sym_name");
  if (!name) return nullptr;
  const Operation* found = nullptr;
  int calls = 0;
  for (Operation* f : module.definedFunctions())
    f->walk([&](Operation& op) {
      if (op.name() != "func.call") return;
      Attribute callee = op.attr("callee");
      if (callee && callee.symbolPath().size() == 1 && callee.symbolPath()[0] == name.stringValue()) {
        found = &op;
        ++calls;
      }
    });
  return calls == 1 ? found : nullptr;
}

}  // namespace

std::vector<Frame> framesOf(std::string_view text) {
  std::vector<Frame> frames;
  for (size_t open = text.find('"'); open != std::string_view::npos; open = text.find('"', open + 1)) {
    size_t close = open + 1;
    while (close < text.size() && text[close] != '"') close += text[close] == '\\' ? 2 : 1;
    if (close >= text.size()) break;
    unsigned line = 0, col = 0;
    int consumed = 0;
    std::string rest(text.substr(close + 1, 32));
    if (std::sscanf(rest.c_str(), ":%u:%u%n", &line, &col, &consumed) == 2 && consumed > 0 && line > 0) {
      Frame frame{Location{internFileName(text.substr(open + 1, close - open - 1)), line, col}, nameBefore(text, open)};
      frames.push_back(std::move(frame));
    }
    open = close;
  }
  return frames;
}

std::vector<Frame> callChain(const Module& module, const Operation& op) {
  std::vector<Frame> chain;
  auto add = [&](const Operation& holder) {
    for (Frame& frame : framesOf(holder.debugLoc()))
      if (std::ranges::find(chain, frame) == chain.end()) chain.push_back(std::move(frame));
  };
  add(op);
  const Operation* current = &op;
  for (int depth = 0; depth < 256; ++depth) {
    const Operation* parent = current->parentOp();
    if (!parent || parent->name() == "builtin.module") break;
    if (parent->name() == "func.func") {
      parent = callerOf(module, *parent);
      if (!parent) break;
    }
    add(*parent);
    current = parent;
  }
  return chain;
}

void addCallChain(Diagnostic& diag, const Module& module) {
  if (!diag.loc.known()) return;
  // The op the message names ("'stablehlo.custom_call' op ..."), when it does.
  std::string named;
  if (diag.message.starts_with("'")) {
    size_t end = diag.message.find("' op ");
    if (end != std::string::npos) named = diag.message.substr(1, end - 1);
  }
  std::vector<const Operation*> at, atNamed;
  module.op().walk([&](Operation& op) {
    if (op.loc().file != diag.loc.file || op.loc().line != diag.loc.line || op.loc().col != diag.loc.col) return;
    at.push_back(&op);
    if (op.name() == named) atNamed.push_back(&op);
  });
  const std::vector<const Operation*>& candidates = atNamed.empty() ? at : atNamed;
  if (candidates.empty()) return;
  std::vector<Frame> chain = callChain(module, *candidates.front());
  for (const Operation* other : candidates)
    if (callChain(module, *other) != chain) return;
  if (chain.size() < 2 || !(chain.front().loc.file == diag.loc.file && chain.front().loc.line == diag.loc.line)) return;
  for (size_t i = 1; i < chain.size(); ++i) {
    Diagnostic note;
    note.severity = Diagnostic::Severity::Note;
    note.code = diag.code;
    note.loc = chain[i].loc;
    note.message = "called from here" + (chain[i].function.empty() ? "" : " (in " + chain[i].function + ")");
    diag.notes.push_back(std::move(note));
  }
}

namespace {
constexpr std::string_view kFailedCall = "the call that failed: ";
constexpr std::string_view kOuterCall = "called from ";
}  // namespace

void addCallLocation(Diagnostic& diag, std::string_view callLocation) {
  bool first = true;
  while (!callLocation.empty()) {
    size_t end = callLocation.find('\n');
    std::string_view frame = callLocation.substr(0, end);
    callLocation = end == std::string_view::npos ? std::string_view() : callLocation.substr(end + 1);
    while (!frame.empty() && (frame.back() == '\r' || frame.back() == ' ')) frame.remove_suffix(1);
    if (frame.empty()) continue;
    Diagnostic note;
    note.severity = Diagnostic::Severity::Note;
    note.code = diag.code;
    note.message = std::string(first ? kFailedCall : kOuterCall) + std::string(frame);
    diag.notes.push_back(std::move(note));
    first = false;
  }
}

bool isCallLocationNote(const Diagnostic& note) {
  return !note.loc.known() && note.message.starts_with(kFailedCall);
}

}  // namespace kiln::pjrt
