"""Writes StableHLO programs that nest regions deeply (tests/lit/limits).

  nested_regions.py nest N              @main: N stablehlo.case ops, each in the last's branch
  nested_regions.py recursive N         @main calls @f; @f nests N cases around a call of itself
  nested_regions.py chain K N           @main calls @f0 -> ... -> @f{K-1}, each nesting N cases
"""
import sys


def cases(depth, inner, result, indent=1):
    """`depth` nested single-branch stablehlo.case ops whose innermost branch runs `inner` lines and
    returns `result`; the outermost case's value is %r0."""
    lines = []
    for k in range(depth):
        lines.append("  " * (indent + k) + f'%r{k} = "stablehlo.case"(%i) ({{')
    lines += ["  " * (indent + depth) + line for line in inner]
    lines.append("  " * (indent + depth) + f"stablehlo.return {result} : tensor<f32>")
    for k in reversed(range(depth)):
        lines.append("  " * (indent + k) + "}) : (tensor<i32>) -> tensor<f32>")
        if k > 0:
            lines.append("  " * (indent + k) + f"stablehlo.return %r{k} : tensor<f32>")
    return lines


def function(name, body, visibility=""):
    return ([f"func.func {visibility}@{name}(%x: tensor<f32>) -> tensor<f32> {{",
             "  %i = stablehlo.constant dense<0> : tensor<i32>"] + body + ["  return %r0 : tensor<f32>", "}"])


def main():
    kind, *numbers = sys.argv[1:]
    n = [int(v) for v in numbers]
    out = []
    if kind == "nest":
        out += function("main", cases(n[0], [], "%x"))
    elif kind == "recursive":
        out += function("main", cases(1, ["%c = func.call @f(%x) : (tensor<f32>) -> tensor<f32>"], "%c"))
        out += function("f", cases(n[0], ["%c = func.call @f(%x) : (tensor<f32>) -> tensor<f32>"], "%c"), "private ")
    elif kind == "chain":
        k, depth = n
        out += function("main", cases(1, ["%c = func.call @f0(%x) : (tensor<f32>) -> tensor<f32>"], "%c"))
        for j in range(k):
            call = [f"%c = func.call @f{j + 1}(%x) : (tensor<f32>) -> tensor<f32>"] if j + 1 < k else []
            out += function(f"f{j}", cases(depth, call, "%c" if call else "%x"), "private ")
    else:
        sys.exit(f"unknown kind {kind}")
    print("\n".join(out))


main()
