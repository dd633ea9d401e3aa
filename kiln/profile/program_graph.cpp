#include "kiln/profile/program_graph.h"

#include <stdio.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>

#include "kiln/backends/cpu/routines.h"
#include "kiln/device/device_buffer.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/printer.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/fusion_util.h"
#include "kiln/passes/op_summary.h"
#include "kiln/support/format.h"

namespace kiln {

namespace {

using NodeKind = ProgramGraph::NodeKind;

// Long literals make an op's text unreadable: it is cut.
std::string clipText(std::string text) {
  constexpr size_t kMaxChars = 3000;
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "\n...";
  return text;
}

size_t indentOf(const std::string& line) { return line.find_first_not_of(' '); }

// The text of each op of `function`'s body, and of each op inside its
// fusions, cut from the function as the printer prints it, so that values
// have the names kiln-opt prints (an op printed alone has no names for its
// operands). An op's text is its first line at its block's indentation and
// the lines after it that are deeper or close its regions.
std::unordered_map<const Operation*, std::string> printedOps(const Operation& function) {
  std::vector<std::string> lines;
  std::string printed = printOp(function), line;
  for (char c : printed) {
    if (c != '\n') {
      line += c;
      continue;
    }
    lines.push_back(std::move(line));
    line.clear();
  }
  // Chunks of lines [begin, end) at indentation `indent` within [from, to).
  auto chunks = [&](size_t from, size_t to, size_t indent) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = from; i < to; ++i) {
      size_t at = indentOf(lines[i]);
      // Region openers and closers (`^bb0(...)`, `}) : ...`, while's `cond {`) continue an op.
      bool starts = at == indent && lines[i][at] != '}' && lines[i][at] != '^' &&
                    lines[i].compare(at, 6, "cond {") != 0;
      if (starts) out.emplace_back(i, i + 1);
      else if (!out.empty() && (at == std::string::npos || at > indent || (at == indent && lines[i][at] == '}')))
        out.back().second = i + 1;
    }
    return out;
  };
  auto join = [&](std::pair<size_t, size_t> chunk, size_t indent) {
    std::string text;
    for (size_t i = chunk.first; i < chunk.second; ++i)
      text += (i > chunk.first ? "\n" : "") + lines[i].substr(std::min(indent, lines[i].size()));
    return text;
  };
  std::unordered_map<const Operation*, std::string> texts;
  if (lines.size() < 2) return texts;
  size_t indent = indentOf(lines[1]);
  std::vector<const Operation*> ops;
  for (const Operation& op : func::body(function)) ops.push_back(&op);
  std::vector<std::pair<size_t, size_t>> top = chunks(1, lines.size(), indent);
  if (top.size() != ops.size()) return texts;  // not the layout expected: every op prints alone
  for (size_t i = 0; i < ops.size(); ++i) {
    texts[ops[i]] = join(top[i], indent);
    if (ops[i]->name() != "kiln.fusion") continue;
    std::vector<const Operation*> inner;
    for (const Operation& op : ops[i]->region(0).front()) inner.push_back(&op);
    std::vector<std::pair<size_t, size_t>> body = chunks(top[i].first + 1, top[i].second, indent + 2);
    if (body.size() != inner.size()) continue;
    for (size_t j = 0; j < inner.size(); ++j) texts[inner[j]] = join(body[j], indent + 2);
  }
  return texts;
}

std::string location(const Operation& op) { return op.loc().known() ? op.loc().str() : ""; }

NodeKind kindOf(const Operation& op) {
  if (op.name() == "stablehlo.constant") return NodeKind::Constant;
  if (op.name() == "func.return") return NodeKind::Return;
  if (fusion::isLibraryCall(op)) return NodeKind::Library;
  const cpu::RoutineEntry* routine = cpu::findRoutine(op.name());
  if (routine && routine->use == cpu::RoutineUse::Always) return NodeKind::Routine;
  if (hasTrait(op, kControlFlow)) return NodeKind::Control;
  return NodeKind::Op;
}

class GraphBuilder {
 public:
  ProgramGraph build(const Operation& function) {
    graph_.function = std::string(func::name(function));
    printed_ = printedOps(function);
    const Block& body = func::body(function);
    for (Value* arg : body.arguments())
      producer_[arg] = addNode(NodeKind::Parameter, "%arg" + std::to_string(arg->index()) + ": " + arg->type().str(),
                               "", "");
    for (const Operation& op : body) {
      if (op.name() == "kiln.fusion") addFusion(op);
      else addOp(op);
    }
    return std::move(graph_);
  }

 private:
  int addNode(NodeKind kind, std::string label, std::string text, std::string loc, int cluster = -1) {
    graph_.nodes.push_back({kind, std::move(label), std::move(text), std::move(loc), cluster});
    return static_cast<int>(graph_.nodes.size()) - 1;
  }

  void addEdge(const Value* value, int to, bool internal) {
    auto it = producer_.find(value);
    if (it == producer_.end()) return;
    graph_.edges.push_back({it->second, to, value->type().str(), device::denseBytes(value->type()), internal});
  }

  void addOp(const Operation& op) {
    int node = addNode(kindOf(op), shortOpName(op.name()), opText(op), location(op));
    for (Value* operand : op.operands()) addEdge(operand, node, false);
    for (Value* result : op.results()) producer_[result] = node;
  }

  void addFusion(const Operation& fusion) {
    ProgramGraph::Cluster cluster;
    cluster.label = opLabel(fusion);
    Attribute kind = fusion.attr("kind");
    cluster.fusionKind = kind && kind.is(AttrKind::String) ? kind.stringValue() : "";
    cluster.text = opText(fusion);
    cluster.location = location(fusion);
    OpCost cost = opCost(fusion);
    cluster.flops = cost.flops;
    cluster.bytes = cost.bytes;
    int index = static_cast<int>(graph_.clusters.size());
    graph_.clusters.push_back(std::move(cluster));

    const Block& body = fusion.region(0).front();
    std::unordered_map<const Value*, const Value*> outerOf;  // body argument -> fusion operand
    for (unsigned i = 0; i < body.numArguments() && i < fusion.numOperands(); ++i)
      outerOf[body.argument(i)] = fusion.operand(i);
    int first = -1;
    for (const Operation& inner : body) {
      if (inner.name() == "stablehlo.constant") continue;  // a fusion's constants are code, not data
      if (inner.name() == "kiln.yield") {
        for (unsigned i = 0; i < inner.numOperands() && i < fusion.numResults(); ++i) {
          auto it = producer_.find(inner.operand(i));
          if (it != producer_.end()) producer_[fusion.result(i)] = it->second;
        }
        continue;
      }
      NodeKind kind = fusion::isLibraryCall(inner) ? NodeKind::Library : NodeKind::Fused;
      graph_.clusters[index].library |= kind == NodeKind::Library;
      int node = addNode(kind, shortOpName(inner.name()), opText(inner), location(inner), index);
      if (first < 0) first = node;
      graph_.clusters[index].nodes.push_back(node);
      for (Value* operand : inner.operands()) {
        auto outer = outerOf.find(operand);
        if (outer != outerOf.end()) addEdge(outer->second, node, false);
        else addEdge(operand, node, true);
      }
      for (Value* result : inner.results()) producer_[result] = node;
    }
    // A result that passes an operand through comes from the cluster's first op.
    for (Value* result : fusion.results())
      if (!producer_.count(result) && first >= 0) producer_[result] = first;
  }

  std::string opText(const Operation& op) const {
    auto it = printed_.find(&op);
    return clipText(it != printed_.end() ? it->second : printOp(op));
  }

  ProgramGraph graph_;
  std::unordered_map<const Operation*, std::string> printed_;
  std::unordered_map<const Value*, int> producer_;  // the node whose output a value is
};

std::string escapeXml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

const char* kindClass(NodeKind kind) {
  switch (kind) {
    case NodeKind::Parameter: return "parameter";
    case NodeKind::Constant: return "constant";
    case NodeKind::Op: return "op";
    case NodeKind::Library: return "library";
    case NodeKind::Routine: return "routine";
    case NodeKind::Control: return "control";
    case NodeKind::Fused: return "fused";
    case NodeKind::Return: return "return";
  }
  return "op";
}

const char* kindFill(NodeKind kind) {
  switch (kind) {
    case NodeKind::Parameter: return "#e8f5e9";
    case NodeKind::Constant: return "#f3f3f3";
    case NodeKind::Op: return "#e3f2fd";
    case NodeKind::Library: return "#ffcc80";
    case NodeKind::Routine: return "#e1bee7";
    case NodeKind::Control: return "#fff59d";
    case NodeKind::Fused: return "#ffffff";
    case NodeKind::Return: return "#e0e0e0";
  }
  return "#ffffff";
}

// --- The HTML page's layout: layers top to bottom, units left to right. A
// unit is a cluster or a node outside every cluster.

constexpr double kCharWidth = 7.2;  // 12px monospace
constexpr double kNodeHeight = 26, kRowHeight = 22, kHeaderHeight = 24;
constexpr double kGapX = 36, kGapY = 84, kMargin = 24, kClusterPad = 22;

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
};

struct Layout {
  std::vector<int> unitOf;            // per node
  std::vector<Box> units;             // per unit: clusters first, then the other nodes
  std::vector<Box> rows;              // per node: its box (a row of its cluster for fused nodes)
  std::vector<int> layers;            // per unit
  double width = 0, height = 0;
};

double textWidth(const std::string& text) { return static_cast<double>(text.size()) * kCharWidth + 16; }

std::string clip(const std::string& text, size_t chars) {
  return text.size() <= chars ? text : text.substr(0, chars - 3) + "...";
}

Layout layOut(const ProgramGraph& graph) {
  Layout layout;
  size_t numClusters = graph.clusters.size();
  layout.unitOf.assign(graph.nodes.size(), -1);
  int units = static_cast<int>(numClusters);
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    layout.unitOf[n] = graph.nodes[n].cluster >= 0 ? graph.nodes[n].cluster : units++;
  layout.units.assign(units, {});
  layout.rows.assign(graph.nodes.size(), {});

  // Sizes.
  for (size_t c = 0; c < numClusters; ++c) {
    const ProgramGraph::Cluster& cluster = graph.clusters[c];
    double w = textWidth(clip(cluster.label, 64));
    for (int n : cluster.nodes) w = std::max(w, textWidth(graph.nodes[n].label) + 2 * kClusterPad);
    layout.units[c].w = w;
    layout.units[c].h = kHeaderHeight + static_cast<double>(cluster.nodes.size()) * kRowHeight + 8;
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (graph.nodes[n].cluster < 0) {
      Box& box = layout.units[layout.unitOf[n]];
      box.w = std::max(60.0, textWidth(clip(graph.nodes[n].label, 48)));
      box.h = kNodeHeight;
    }

  // Layers: one below every unit it reads from (edges go forward in block order).
  std::vector<int> layer(units, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (const ProgramGraph::Edge& e : graph.edges) {
      int from = layout.unitOf[e.from], to = layout.unitOf[e.to];
      if (from == to || layer[to] > layer[from]) continue;
      layer[to] = layer[from] + 1;
      changed = true;
    }
  }
  // Units nothing feeds (parameters, constants) sit right above their first reader.
  std::vector<int> firstReader(units, -1);
  std::vector<bool> fed(units, false);
  for (const ProgramGraph::Edge& e : graph.edges) {
    int from = layout.unitOf[e.from], to = layout.unitOf[e.to];
    if (from == to) continue;
    fed[to] = true;
    if (firstReader[from] < 0 || layer[to] < firstReader[from]) firstReader[from] = layer[to];
  }
  for (int u = 0; u < units; ++u)
    if (!fed[u] && firstReader[u] > 0) layer[u] = firstReader[u] - 1;
  int numLayers = units ? *std::max_element(layer.begin(), layer.end()) + 1 : 0;
  // Units of a layer in the order of their first node (block order).
  std::vector<int> firstNode(units, -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (firstNode[layout.unitOf[n]] < 0) firstNode[layout.unitOf[n]] = static_cast<int>(n);
  double y = kMargin;
  for (int l = 0; l < numLayers; ++l) {
    std::vector<int> members;
    for (int u = 0; u < units; ++u)
      if (layer[u] == l) members.push_back(u);
    std::sort(members.begin(), members.end(), [&](int a, int b) { return firstNode[a] < firstNode[b]; });
    double x = kMargin, height = 0;
    for (int u : members) {
      layout.units[u].x = x;
      layout.units[u].y = y;
      x += layout.units[u].w + kGapX;
      height = std::max(height, layout.units[u].h);
    }
    layout.width = std::max(layout.width, x + kMargin);
    y += height + kGapY;
  }
  layout.height = y + kMargin;
  layout.layers = layer;

  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Box& unit = layout.units[layout.unitOf[n]];
    if (graph.nodes[n].cluster < 0) {
      layout.rows[n] = unit;
      continue;
    }
    const std::vector<int>& members = graph.clusters[graph.nodes[n].cluster].nodes;
    double index = static_cast<double>(std::find(members.begin(), members.end(), static_cast<int>(n)) - members.begin());
    layout.rows[n] = {unit.x + kClusterPad, unit.y + kHeaderHeight + index * kRowHeight, unit.w - 2 * kClusterPad,
                      kRowHeight - 4};
  }
  return layout;
}

std::string edgeLabel(const ProgramGraph::Edge& e) { return e.type + "  " + byteSize(e.bytes); }

std::string svgOfGraph(const ProgramGraph& graph, const Layout& layout) {
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"graph\" width=\"" + number(layout.width) +
                    "\" height=\"" + number(layout.height) + "\">\n";
  svg += "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#607d8b\"/></marker></defs>\n";
  // Clusters first (under their rows and the edges).
  for (size_t c = 0; c < graph.clusters.size(); ++c) {
    const ProgramGraph::Cluster& cluster = graph.clusters[c];
    const Box& box = layout.units[c];
    std::string data = cluster.label + "\nflops " + siCount(cluster.flops) + ", bytes at its boundary " +
                       byteSize(static_cast<int64_t>(cluster.bytes)) + (cluster.library ? "\nruns a library call" : "") +
                       "\n\n" + cluster.text;
    svg += "<g class=\"cluster fusion-" + cluster.fusionKind + (cluster.library ? " library" : "") +
           "\" id=\"cluster" + std::to_string(c) + "\" data-text=\"" + escapeXml(data) + "\" data-loc=\"" +
           escapeXml(cluster.location) + "\">\n";
    svg += "  <rect x=\"" + number(box.x) + "\" y=\"" + number(box.y) + "\" width=\"" + number(box.w) + "\" height=\"" +
           number(box.h) + "\" rx=\"8\" fill=\"" + (cluster.library ? "#fff3e0" : "#e3f2fd") +
           "\" stroke=\"#546e7a\" stroke-dasharray=\"5,3\"/>\n";
    svg += "  <text x=\"" + number(box.x + 8) + "\" y=\"" + number(box.y + 16) + "\" class=\"header\">" +
           escapeXml(clip(cluster.label, 64)) + "</text>\n</g>\n";
  }
  // Edges.
  std::map<int, int> outgoing, incoming;  // per unit: edges drawn so far, to spread them
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const ProgramGraph::Edge& e = graph.edges[i];
    const Box& from = layout.rows[e.from];
    const Box& to = layout.rows[e.to];
    std::string title = escapeXml(edgeLabel(e) + (e.internal ? " (inside the fusion: never in memory)" : ""));
    if (e.internal) {
      // Inside a cluster: an arc on its left from row to row.
      double x = from.x - 2, y1 = from.y + from.h / 2, y2 = to.y + to.h / 2;
      double bend = 8 + (y2 - y1) / kRowHeight * 3;
      svg += "<path class=\"edge internal\" d=\"M" + number(x) + "," + number(y1) + " C" + number(x - bend) + "," +
             number(y1) + " " + number(x - bend) + "," + number(y2) + " " + number(x) + "," + number(y2) +
             "\" data-text=\"" + title + "\" marker-end=\"url(#arrow)\"/>\n";
      continue;
    }
    int fromUnit = layout.unitOf[e.from], toUnit = layout.unitOf[e.to];
    const Box& a = layout.units[fromUnit];
    const Box& b = layout.units[toUnit];
    double x1 = a.x + a.w / 2 + 10.0 * (outgoing[fromUnit]++ % 5) - 20;
    double y1 = a.y + a.h;
    double x2 = b.x + b.w / 2 + 10.0 * (incoming[toUnit]++ % 5) - 20;
    double y2 = b.y;
    double bend = std::max(30.0, (y2 - y1) / 2);
    bool adjacent = layout.layers[toUnit] == layout.layers[fromUnit] + 1;
    svg += "<g class=\"edge" + std::string(adjacent ? "" : " long") + "\" data-text=\"" + title + "\"><path d=\"M" +
           number(x1) + "," + number(y1) + " C" + number(x1) + "," + number(y1 + bend) + " " + number(x2) + "," +
           number(y2 - bend) + " " + number(x2) + "," + number(y2) + "\" marker-end=\"url(#arrow)\"/>";
    // Edges into the next layer are labelled where they cross the gap; longer
    // ones would cross each other's labels, so theirs shows on hover.
    if (adjacent)
      svg += "<text x=\"" + number((x1 + x2) / 2 + 4) + "\" y=\"" + number(y1 + 22 + 10.0 * (i % 3)) +
             "\" class=\"edge-label\">" + escapeXml(edgeLabel(e)) + "</text>";
    svg += "</g>\n";
  }
  // Nodes.
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ProgramGraph::Node& node = graph.nodes[n];
    const Box& box = layout.rows[n];
    svg += "<g class=\"node " + std::string(kindClass(node.kind)) + "\" id=\"node" + std::to_string(n) +
           "\" data-text=\"" + escapeXml(node.text.empty() ? node.label : node.text) + "\" data-loc=\"" +
           escapeXml(node.location) + "\"><rect x=\"" + number(box.x) + "\" y=\"" + number(box.y) + "\" width=\"" +
           number(box.w) + "\" height=\"" + number(box.h) + "\" rx=\"4\" fill=\"" + kindFill(node.kind) +
           "\"/><text x=\"" + number(box.x + 8) + "\" y=\"" + number(box.y + box.h / 2 + 4) + "\">" +
           escapeXml(clip(node.label, 48)) + "</text></g>\n";
  }
  return svg + "</svg>\n";
}

constexpr std::string_view kPageStyle = R"(
body { font: 13px sans-serif; margin: 0; display: flex; height: 100vh; }
#canvas { flex: 1; overflow: auto; background: #fafafa; }
#side { width: 420px; border-left: 1px solid #ccc; padding: 10px; overflow: auto; background: #fff; }
#side pre { white-space: pre-wrap; font: 11px monospace; }
svg text { font: 12px monospace; pointer-events: none; }
svg text.header { font-weight: bold; }
svg text.edge-label { font-size: 10px; fill: #455a64; }
.node rect { stroke: #546e7a; }
.node.library rect { stroke: #e65100; stroke-width: 2; }
.node.routine rect { stroke: #6a1b9a; stroke-width: 2; }
.edge path, path.edge { fill: none; stroke: #90a4ae; stroke-width: 1.3; }
.edge.long path { stroke: #cfd8dc; }
path.edge.internal { stroke: #b0bec5; stroke-dasharray: 3,2; }
.hovered rect, .hovered path, path.hovered { stroke: #d81b60 !important; stroke-width: 2.5 !important; }
.pinned rect { stroke: #d81b60 !important; stroke-width: 3 !important; }
#tip { position: fixed; display: none; max-width: 560px; max-height: 60vh; overflow: hidden; background: #263238;
       color: #eceff1; font: 11px monospace; padding: 6px 8px; border-radius: 4px; white-space: pre-wrap;
       pointer-events: none; }
.legend span { display: inline-block; padding: 1px 6px; margin: 2px; border: 1px solid #546e7a; border-radius: 3px; }
)";

// Hover shows an element's text in a tooltip; a click pins it in the side panel.
constexpr std::string_view kPageScript = R"(
(function () {
  var svg = document.getElementById('graph');
  var tip = document.getElementById('tip');
  var detail = document.getElementById('detail');
  var where = document.getElementById('where');
  var hovered = null, pinned = null;
  function target(event) {
    var el = event.target;
    while (el && el !== svg) {
      if (el.getAttribute && el.getAttribute('data-text') !== null) return el;
      el = el.parentNode;
    }
    return null;
  }
  svg.addEventListener('mousemove', function (event) {
    var el = target(event);
    if (el !== hovered) {
      if (hovered) hovered.classList.remove('hovered');
      hovered = el;
      if (el) el.classList.add('hovered');
    }
    if (!el) { tip.style.display = 'none'; return; }
    var loc = el.getAttribute('data-loc');
    tip.textContent = el.getAttribute('data-text') + (loc ? '\n\n' + loc : '');
    tip.style.display = 'block';
    tip.style.left = Math.min(event.clientX + 14, window.innerWidth - 570) + 'px';
    tip.style.top = (event.clientY + 14) + 'px';
  });
  svg.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  svg.addEventListener('click', function (event) {
    var el = target(event);
    if (pinned) pinned.classList.remove('pinned');
    pinned = el;
    if (!el) { detail.textContent = 'Click an op, a fusion or an edge.'; where.textContent = ''; return; }
    el.classList.add('pinned');
    detail.textContent = el.getAttribute('data-text');
    var loc = el.getAttribute('data-loc');
    where.textContent = loc ? 'source: ' + loc : '';
  });
})();
)";

// Unit and cluster counts for the page's heading.
std::string summary(const ProgramGraph& graph) {
  int library = 0, routines = 0, ops = 0;
  for (const ProgramGraph::Node& n : graph.nodes) {
    library += n.kind == NodeKind::Library;
    routines += n.kind == NodeKind::Routine;
    ops += n.kind != NodeKind::Parameter && n.kind != NodeKind::Return;
  }
  return std::to_string(ops) + " ops, " + std::to_string(graph.clusters.size()) + " fusions, " +
         std::to_string(library) + " library calls, " + std::to_string(routines) + " routines";
}

std::string dotQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string byteSize(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 3) v /= 1024, ++unit;
  char buf[32];
  std::snprintf(buf, sizeof buf, unit ? "%.1f %s" : "%.0f %s", v, units[unit]);
  return buf;
}

ProgramGraph buildProgramGraph(const Operation& function) { return GraphBuilder().build(function); }

std::string programGraphHtml(const ProgramGraph& graph, const std::string& title) {
  Layout layout = layOut(graph);
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escapeXml(title) +
                     "</title>\n<style>" + std::string(kPageStyle) + "</style></head>\n<body>\n<div id=\"canvas\">\n" +
                     svgOfGraph(graph, layout) + "</div>\n<div id=\"side\"><h3>" + escapeXml(title) + "</h3>\n<p>@" +
                     escapeXml(graph.function) + ": " + summary(graph) + "</p>\n";
  html += "<p class=\"legend\">";
  for (NodeKind kind : {NodeKind::Parameter, NodeKind::Constant, NodeKind::Op, NodeKind::Library, NodeKind::Routine,
                        NodeKind::Control, NodeKind::Return})
    html += "<span style=\"background:" + std::string(kindFill(kind)) + "\">" + kindClass(kind) + "</span>";
  html += "<span style=\"background:#e3f2fd;border-style:dashed\">fusion</span></p>\n"
          "<p>Data flows down. Edges between boxes carry values through memory (type and bytes); dashed arcs "
          "inside a fusion are values that stay in registers. Hover for an op's text, click to keep it here.</p>\n"
          "<p id=\"where\"></p><pre id=\"detail\">Click an op, a fusion or an edge.</pre></div>\n<div id=\"tip\"></div>\n"
          "<script>" +
          std::string(kPageScript) + "</script>\n</body></html>\n";
  return html;
}

std::string programGraphDot(const ProgramGraph& graph) {
  std::string dot = "digraph " + dotQuote(graph.function) +
                    " {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", "
                    "fontsize=10];\n  edge [fontname=\"monospace\", fontsize=8, color=\"#78909c\"];\n";
  auto nodeLine = [&](size_t n) {
    const ProgramGraph::Node& node = graph.nodes[n];
    std::string tooltip = (node.text.empty() ? node.label : node.text) + (node.location.empty() ? "" : "\n" + node.location);
    std::string line = "n" + std::to_string(n) + " [label=" + dotQuote(clip(node.label, 48)) +
                       ", fillcolor=" + dotQuote(kindFill(node.kind)) + ", tooltip=" + dotQuote(clip(tooltip, 1000));
    if (node.kind == NodeKind::Library) line += ", color=\"#e65100\", penwidth=2";
    if (node.kind == NodeKind::Routine) line += ", color=\"#6a1b9a\", penwidth=2";
    return line + "];\n";
  };
  for (size_t c = 0; c < graph.clusters.size(); ++c) {
    const ProgramGraph::Cluster& cluster = graph.clusters[c];
    dot += "  subgraph cluster_" + std::to_string(c) + " {\n    label=" + dotQuote(clip(cluster.label, 64)) +
           "; style=\"rounded,dashed,filled\"; fillcolor=" + dotQuote(cluster.library ? "#fff3e0" : "#e3f2fd") +
           "; fontname=\"monospace\"; fontsize=10; tooltip=" +
           dotQuote(clip(cluster.text + (cluster.location.empty() ? "" : "\n" + cluster.location), 1000)) + ";\n";
    for (int n : cluster.nodes) dot += "    " + nodeLine(static_cast<size_t>(n));
    dot += "  }\n";
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (graph.nodes[n].cluster < 0) dot += "  " + nodeLine(n);
  for (const ProgramGraph::Edge& e : graph.edges)
    dot += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to) +
           (e.internal ? " [style=dashed, tooltip=" + dotQuote(e.type) + "];\n"
                       : " [label=" + dotQuote(e.type + "\n" + byteSize(e.bytes)) + "];\n");
  return dot + "}\n";
}

Expected<std::string> dotToSvg(const std::string& dot) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);
  if (ec) return error("--graph: no temporary directory for dot: " + ec.message());
  fs::path input = dir / ("kiln-graph-" + std::to_string(::getpid()) + ".dot");
  fs::path output = input;
  output.replace_extension(".svg");
  {
    std::ofstream out(input, std::ios::binary);
    if (!out || !(out << dot)) return error("--graph: cannot write '" + input.string() + "'");
  }
  std::string command = "dot -Tsvg -o '" + output.string() + "' '" + input.string() + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string messages;
  if (pipe) {
    char buf[512];
    while (size_t got = std::fread(buf, 1, sizeof buf, pipe)) messages.append(buf, got);
  }
  int status = pipe ? ::pclose(pipe) : -1;
  fs::remove(input, ec);
  if (status != 0) {
    fs::remove(output, ec);
    // The shell's 127: the command was not found.
    if (status == -1 || WEXITSTATUS(status) == 127)
      return error("--graph OUT.svg needs Graphviz's `dot` on PATH (Debian: apt-get install graphviz; "
                   "scripts/setup.sh installs it), or write OUT.html instead");
    return error("--graph: dot failed: " + messages);
  }
  std::ifstream in(output, std::ios::binary);
  std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(output, ec);
  return svg;
}

std::string memoryTimelineSvg(const Operation& function) {
  const Block& body = func::body(function);
  BufferAssignment assignment = assignBuffers(body);
  int steps = static_cast<int>(assignment.order.size());
  constexpr double kLeft = 90, kTop = 60, kArenaHeight = 320, kLaneHeight = 14, kCurveHeight = 120;
  double step = std::max(8.0, std::min(40.0, 900.0 / std::max(1, steps + 1)));
  double plotWidth = step * (steps + 1);
  auto x = [&](int position) { return kLeft + (position + 1) * step; };

  std::vector<const Buffer*> parameters, arena;
  for (const Buffer& b : assignment.buffers) {
    if (b.kind == Buffer::Kind::Parameter) parameters.push_back(&b);
    if ((b.kind == Buffer::Kind::Temp || b.kind == Buffer::Kind::Scratch) && b.size > 0) arena.push_back(&b);
  }
  double lanesTop = kTop;
  double arenaTop = lanesTop + static_cast<double>(parameters.size()) * kLaneHeight + 30;
  double curveTop = arenaTop + kArenaHeight + 50;
  double height = curveTop + kCurveHeight + 50;
  double width = kLeft + plotWidth + 40;

  auto valueNames = [](const Buffer& b) {
    std::string names;
    for (const Value* v : b.values) {
      const Operation* op = v->definingOp();
      std::string name = op ? shortOpName(op->name()) : "%arg" + std::to_string(v->index());
      std::string line = op ? sourceLine(*op) : "";
      names += "\n  " + name + " : " + v->type().str() + (line.empty() ? "" : "  " + line);
    }
    return names;
  };
  auto rect = [&](const Buffer& b, double top, double h, const char* fill, const std::string& what) {
    double left = x(b.firstUse), right = x(b.lastUse) + step;
    return "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(std::max(2.0, right - left)) +
           "\" height=\"" + number(std::max(1.5, h)) + "\" fill=\"" + fill +
           "\" stroke=\"#37474f\" stroke-width=\"0.5\"><title>" + escapeXml(what + valueNames(b)) + "</title></rect>\n";
  };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
                    number(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" "
                    "height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(kLeft) + "\" y=\"22\" font-size=\"14\" font-weight=\"bold\">memory timeline of @" +
         escapeXml(std::string(func::name(function))) + ": arena " + byteSize(assignment.arenaBytes) + ", peak " +
         byteSize(assignment.peakBytes) + " live at step " + std::to_string(assignment.peakPosition) + "</text>\n";
  svg += "<text x=\"" + number(kLeft) + "\" y=\"40\">x: the schedule (step -1 is the entry); each rectangle a "
         "buffer from its first to its last use (hover for its values)</text>\n";
  // Parameters, one lane each.
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Buffer& b = *parameters[i];
    double top = lanesTop + static_cast<double>(i) * kLaneHeight;
    svg += "<text x=\"8\" y=\"" + number(top + 10) + "\">param " + std::to_string(b.parameter) +
           (b.donated ? " (donated)" : "") + "</text>\n";
    svg += rect(b, top + 1, kLaneHeight - 3, b.donated ? "#ffcc80" : "#a5d6a7",
                "parameter " + std::to_string(b.parameter) + ", " + byteSize(b.size));
  }
  // The arena: offset against time.
  double scale = assignment.arenaBytes > 0 ? kArenaHeight / static_cast<double>(assignment.arenaBytes) : 0;
  svg += "<rect x=\"" + number(kLeft) + "\" y=\"" + number(arenaTop) + "\" width=\"" + number(plotWidth) +
         "\" height=\"" + number(kArenaHeight) + "\" fill=\"#fafafa\" stroke=\"#b0bec5\"/>\n";
  svg += "<text x=\"8\" y=\"" + number(arenaTop + 12) + "\">arena offset</text>\n<text x=\"8\" y=\"" +
         number(arenaTop + 26) + "\">0</text>\n<text x=\"8\" y=\"" + number(arenaTop + kArenaHeight) + "\">" +
         byteSize(assignment.arenaBytes) + "</text>\n";
  for (const Buffer* b : arena)
    svg += rect(*b, arenaTop + static_cast<double>(b->offset) * scale, static_cast<double>(b->size) * scale,
                b->kind == Buffer::Kind::Scratch ? "#ce93d8" : "#90caf9",
                std::string(b->kind == Buffer::Kind::Scratch ? "scratch of a loop/branch body" : "buffer") + ", " +
                    byteSize(b->size) + " at offset " + std::to_string(b->offset));
  // Bytes in live buffers at each step (parameters and the arena's).
  std::vector<int64_t> live(steps + 1, 0);
  for (const Buffer& b : assignment.buffers) {
    if (b.kind == Buffer::Kind::Constant) continue;
    for (int p = std::max(-1, b.firstUse); p <= std::min(steps - 1, b.lastUse); ++p) live[p + 1] += b.size;
  }
  int64_t most = std::max<int64_t>(1, *std::max_element(live.begin(), live.end()));
  svg += "<text x=\"8\" y=\"" + number(curveTop + 12) + "\">live bytes</text>\n<text x=\"8\" y=\"" +
         number(curveTop + 26) + "\">" + byteSize(most) + "</text>\n";
  std::string points;
  for (int p = -1; p < steps; ++p) {
    double top = curveTop + kCurveHeight * (1 - static_cast<double>(live[p + 1]) / static_cast<double>(most));
    points += number(x(p)) + "," + number(top) + " " + number(x(p) + step) + "," + number(top) + " ";
  }
  svg += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\"/>\n";
  svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(curveTop + kCurveHeight) + "\" x2=\"" +
         number(kLeft + plotWidth) + "\" y2=\"" + number(curveTop + kCurveHeight) + "\" stroke=\"#90a4ae\"/>\n";
  double peakX = x(assignment.peakPosition) + step / 2;
  svg += "<line x1=\"" + number(peakX) + "\" y1=\"" + number(arenaTop) + "\" x2=\"" + number(peakX) + "\" y2=\"" +
         number(curveTop + kCurveHeight) + "\" stroke=\"#d81b60\" stroke-dasharray=\"4,3\"/>\n<text x=\"" +
         number(peakX + 4) + "\" y=\"" + number(curveTop + kCurveHeight + 16) + "\" fill=\"#d81b60\">peak " +
         byteSize(assignment.peakBytes) + "</text>\n";
  // The schedule's ops along the bottom, every few steps.
  int every = std::max(1, static_cast<int>(60 / step));
  for (int p = 0; p < steps; p += every) {
    const Operation& op = *assignment.order[p];
    svg += "<text x=\"" + number(x(p) + 2) + "\" y=\"" + number(curveTop + kCurveHeight + 32) + "\">" +
           std::to_string(p) + "<title>" + escapeXml(opLabel(op)) + "</title></text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace kiln
