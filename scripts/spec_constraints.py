#!/usr/bin/env python3
"""Counts which numbered constraints of the StableHLO specification have a
negative verifier test (docs/testing.md, "Spec constraints").

A test names the constraint it breaks in the comment line above its function,
`// <op> (Cn) <what>`, in a `// -----` chunk of tests/lit/verify/*.mlir that
has an `expected-error`. The constraints per op are those of the ops section
of the StableHLO specification (docs/spec.md, 2024 revision: gather and
scatter with batching dimensions, dot_general with algorithms, the dynamism
ops). Constraints the verifier leaves to a later stage on purpose are listed
in DEFERRED with the reason (also in docs/ops.md).

  scripts/spec_constraints.py            # summary and what is missing, per op
  scripts/spec_constraints.py --verbose  # also what is deferred, and why
  scripts/spec_constraints.py --check    # also exit 1 if a constraint is neither
                                         # tested nor deferred, or a tag is wrong
"""
import argparse
import glob
import os
import re
import sys

# Number of numbered constraints in each op's section of the specification.
SPEC = {
    "abs": 2, "add": 7, "after_all": 0, "all_gather": 6, "all_reduce": 7, "all_to_all": 9, "and": 1,
    "atan2": 1, "batch_norm_grad": 5, "batch_norm_inference": 7, "batch_norm_training": 7,
    "bitcast_convert": 2, "broadcast_in_dim": 6, "case": 4, "cbrt": 1, "ceil": 1, "cholesky": 3,
    "clamp": 4, "collective_broadcast": 3, "collective_permute": 5, "compare": 3, "complex": 3,
    "composite": 4, "concatenate": 6, "constant": 1, "convert": 1, "convolution": 34, "cosine": 1,
    "count_leading_zeros": 1, "custom_call": 0, "divide": 1, "dot_general": 24,
    "dynamic_broadcast_in_dim": 10, "dynamic_conv": 34, "dynamic_gather": 14, "dynamic_iota": 2,
    "dynamic_pad": 4, "dynamic_reshape": 4, "dynamic_slice": 5, "dynamic_update_slice": 6,
    "exponential": 1, "exponential_minus_one": 1, "fft": 5, "floor": 1, "gather": 23,
    "get_dimension_size": 1, "get_tuple_element": 2, "if": 3, "imag": 2, "infeed": 3, "iota": 1,
    "is_finite": 1, "log": 1, "log_plus_one": 1, "logistic": 1, "map": 4, "maximum": 1, "minimum": 1,
    "multiply": 1, "negate": 1, "not": 1, "optimization_barrier": 1, "or": 1, "outfeed": 0, "pad": 4,
    "partition_id": 0, "popcnt": 1, "power": 1, "real": 2, "recv": 4, "reduce": 8,
    "reduce_precision": 3, "reduce_scatter": 9, "reduce_window": 16, "remainder": 1, "replica_id": 0,
    "reshape": 3, "reverse": 3, "rng": 3, "rng_bit_generator": 2, "round_nearest_afz": 1,
    "round_nearest_even": 1, "rsqrt": 1, "scatter": 25, "select": 2, "select_and_scatter": 12,
    "send": 1, "shift_left": 1, "shift_right_arithmetic": 1, "shift_right_logical": 1, "sign": 1,
    "sine": 1, "slice": 5, "sort": 5, "sqrt": 1, "subtract": 1, "tan": 1, "tanh": 1, "transpose": 4,
    "triangular_solve": 4, "tuple": 1, "uniform_dequantize": 2, "uniform_quantize": 2, "while": 3,
    "xor": 1,
}

# Left to a later stage on purpose: (op, n) -> why.
DEFERRED = {}

# Tested in the part that types and attributes decide; the rest is left to a
# later stage, as for DEFERRED: (op, n) -> what is not checked, and why.
_VALUE = ("{} when it is not a constant: a value known only at run time; refine-shapes turns the op into "
          "{} once it folds to a constant, and that op's verifier checks it (constants are checked at once, "
          "tests/lit/verify/constant_shape_operands.mlir)")
_GRID = ("{}, when the module does not declare its process grid (mhlo.num_replicas, mhlo.num_partitions): "
         "then the grid is the run's, and the interpreter checks it when the op runs "
         "(kiln/interp/process_groups.cpp); a declared grid is checked at once (tests/lit/verify/process_grid.mlir)")
PARTLY = {
    ("all_gather", 3): _GRID.format("size(replica_groups) = the replica or process count"),
    ("all_reduce", 2): _GRID.format("size(replica_groups) = the replica or process count"),
    ("all_to_all", 6): _GRID.format("size(replica_groups) = the replica or partition count"),
    ("reduce_scatter", 4): _GRID.format("size(replica_groups) = the replica or process count"),
    ("collective_permute", 4): _GRID.format("ids below the replica or partition count"),
    ("collective_broadcast", 2): _GRID.format("ids below the replica or partition count"),
    ("rng", 3): "the values of `shape` when it is not a constant: known only at run time (a constant is "
                "checked at once)",
    ("dynamic_pad", 3): _VALUE.format("interior_padding", "pad"),
    ("dynamic_pad", 4): _VALUE.format("the paddings", "pad"),
    ("dynamic_gather", 8): _VALUE.format("slice_sizes", "gather"),
    ("dynamic_gather", 12): _VALUE.format("slice_sizes", "gather"),
    ("dynamic_gather", 13): _VALUE.format("slice_sizes", "gather"),
    ("dynamic_conv", 25): _VALUE.format("the padding", "a convolution"),
    ("convolution", 27): "element_type(result): a declared result element type is accepted, as JAX's "
                         "preferred_element_type asks (dot_general's spec allows it)",
    ("dynamic_conv", 27): "as convolution (C27)",
}

TAG = re.compile(r"^// ([a-z_0-9]+) ((?:\(C\d+\)(?:, )?)+)")


def scan(root):
    """(op, n) -> [file:line of the tag] for every tag in a chunk with an expected-error."""
    tested, problems = {}, []
    for path in sorted(glob.glob(os.path.join(root, "tests/lit/verify/*.mlir"))):
        rel = os.path.relpath(path, root)
        line_no = 0
        for chunk in open(path).read().split("// -----\n"):
            lines = chunk.split("\n")
            has_error = any("expected-error" in l for l in lines)
            for i, line in enumerate(lines):
                m = TAG.match(line)
                if not m:
                    continue
                op = m.group(1)
                where = f"{rel}:{line_no + i + 1}"
                if op not in SPEC:
                    problems.append(f"{where}: '{op}' is not an op of the specification")
                    continue
                for n in map(int, re.findall(r"C(\d+)", m.group(2))):
                    if not 1 <= n <= SPEC[op]:
                        problems.append(f"{where}: {op} has constraints C1..C{SPEC[op]}, not C{n}")
                    elif not has_error:
                        problems.append(f"{where}: the chunk of {op} (C{n}) expects no error")
                    else:
                        tested.setdefault((op, n), []).append(where)
            line_no += len(lines) - 1 + 1  # the chunk's lines and its separator
    return tested, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every constraint is tested or deferred and every tag is valid")
    parser.add_argument("--verbose", action="store_true", help="also list what is deferred, and why")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    tested, problems = scan(args.root)
    total = sum(SPEC.values())
    missing = {}
    for op, count in sorted(SPEC.items()):
        for n in range(1, count + 1):
            if (op, n) not in tested and (op, n) not in DEFERRED:
                missing.setdefault(op, []).append(f"C{n}")
    n_missing = sum(len(v) for v in missing.values())
    print(f"{total} numbered constraints in {len(SPEC)} ops; {len(tested)} with a negative test "
          f"({len(PARTLY)} of them checked in part), {len(DEFERRED)} deferred on purpose, {n_missing} neither")
    if args.verbose:
        for (op, n), why in sorted(DEFERRED.items()):
            print(f"  deferred: {op} C{n}: {why}")
        for (op, n), why in sorted(PARTLY.items()):
            print(f"  partly deferred: {op} C{n}: {why}")
    for op, cs in missing.items():
        print(f"  untested: {op} {', '.join(cs)}")
    for p in problems:
        print(f"  tag error: {p}")
    if args.check and (missing or problems):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
