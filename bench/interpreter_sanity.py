#!/usr/bin/env python3
"""Performance sanity of the reference interpreter (issue 3): a 256x256x256 f32
dot_general and a 1M-element elementwise chain, each run through `kiln run`
and checked against NumPy. Prints wall times; asserts nothing about them.

usage: bench/interpreter_sanity.py [--build-dir build]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

DOT = """func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
"""

CHAIN = """func.func @main(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<1048576xf32>
  %1 = stablehlo.add %0, %x : tensor<1048576xf32>
  %2 = stablehlo.tanh %1 : tensor<1048576xf32>
  %3 = stablehlo.exponential %2 : tensor<1048576xf32>
  %4 = stablehlo.subtract %3, %x : tensor<1048576xf32>
  %5 = stablehlo.abs %4 : tensor<1048576xf32>
  %6 = stablehlo.sqrt %5 : tensor<1048576xf32>
  %7 = stablehlo.maximum %6, %x : tensor<1048576xf32>
  %8 = stablehlo.negate %7 : tensor<1048576xf32>
  %9 = stablehlo.logistic %8 : tensor<1048576xf32>
  return %9 : tensor<1048576xf32>
}
"""


def chain_reference(x):
    y = np.tanh(x * x + x)
    y = np.abs(np.exp(y) - x)
    y = -np.maximum(np.sqrt(y), x)
    return 1 / (1 + np.exp(-y))


def run(kiln, program, inputs, tmp):
    path = os.path.join(tmp, "program.mlir")
    with open(path, "w") as f:
        f.write(program)
    args = [kiln, "run", path, "--output-dir", tmp]
    for i, x in enumerate(inputs):
        np.save(os.path.join(tmp, f"in{i}.npy"), x)
        args += ["--input", os.path.join(tmp, f"in{i}.npy")]
    start = time.perf_counter()
    subprocess.run(args, check=True)
    seconds = time.perf_counter() - start
    return seconds, np.load(os.path.join(tmp, "result0.npy"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.environ.get("KILN_BUILD_DIR", "build"))
    opts = parser.parse_args()
    kiln = os.path.join(opts.build_dir, "bin", "kiln")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        a = rng.standard_normal((256, 256), dtype=np.float32)
        b = rng.standard_normal((256, 256), dtype=np.float32)
        seconds, got = run(kiln, DOT, [a, b], tmp)
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
        print(f"dot_general 256x256x256 f32: {seconds:.2f} s (whole `kiln run`, incl. .npy I/O)")
        x = rng.standard_normal(1 << 20, dtype=np.float32)
        seconds, got = run(kiln, CHAIN, [x], tmp)
        np.testing.assert_allclose(got, chain_reference(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
        print(f"10-op elementwise chain on 1M f32: {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
