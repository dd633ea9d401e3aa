#!/usr/bin/env python3
"""The summary half of scripts/gpu_check.sh, on the GPU machine.

1. The conformance corpus: `kiln test --backend cuda`'s verdicts compared
   test by test with the interpreter's (computed where the bundle was made).
   A test the interpreter passes and cuda fails (a wrong result) or errs on
   other than "cannot compile ... yet" is a cuda bug; tests cuda cannot
   compile yet are counted by op.
2. A few JAX models (tests/corpus/jax): `kiln run` on cuda and on the
   interpreter with the same random inputs, results compared elementwise.

Exits 1 when anything is wrong (bugs, mismatches, missing verdicts), 0 when
everything cuda runs agrees with the interpreter. Needs NumPy (and
ml_dtypes for bf16 models, skipped without it).
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ["softmax_logsumexp", "reductions", "adam_update", "shape_manipulation", "integer_bool_ops",
          "half_precision", "cumulative", "mlp_forward", "transformer_encoder_layer",
          "switch", "fori_power_iteration", "scan_rnn"]  # control flow driven from the host
NOT_YET = re.compile(r"the cuda back end cannot compile '([^']+)'")


def verdicts(path):
    """label -> (PASS|FAIL|ERROR, detail) from a kiln test log."""
    result = {}
    for line in pathlib.Path(path).read_text(errors="replace").splitlines():
        m = re.match(r"^(PASS|FAIL|ERROR|XFAIL|XPASS) (\S+?)(?:: (.*))?$", line)
        if m:
            result[m.group(2)] = (m.group(1), m.group(3) or "")
    return result


def compare_corpus(cuda_log, interpreter_log):
    cuda, interp = verdicts(cuda_log), verdicts(interpreter_log)
    counts = collections.Counter()
    not_yet = collections.Counter()
    bugs = []
    for label, (want, _) in sorted(interp.items()):
        got, detail = cuda.get(label, ("MISSING", "no verdict (the cuda run was cut off?)"))
        if want != "PASS":
            counts["interpreter fails too (not judged)"] += 1
        elif got == "PASS":
            counts["pass on cuda"] += 1
        elif got == "ERROR" and NOT_YET.search(detail):
            counts["cannot compile on cuda yet"] += 1
            not_yet[NOT_YET.search(detail).group(1)] += 1
        else:
            kind = {"FAIL": "WRONG RESULT on cuda", "ERROR": "ERROR on cuda", "MISSING": "MISSING on cuda"}[got]
            counts[kind] += 1
            bugs.append(f"{kind}: {label}: {detail[:300]}")
    print(f"conformance corpus: {len(interp)} tests ({len(cuda)} cuda verdicts)")
    for kind, n in counts.most_common():
        print(f"  {n:5d}  {kind}")
    if not_yet:
        print("  not compiled yet, by first op: " + ", ".join(f"{op} {n}" for op, n in not_yet.most_common(12)))
    for line in bugs[:25]:
        print("  " + line)
    if len(bugs) > 25:
        print(f"  ... and {len(bugs) - 25} more (see conformance_cuda.txt)")
    return not bugs


DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "i32": "int32", "i64": "int64", "i16": "int16",
          "i8": "int8", "ui8": "uint8", "ui32": "uint32", "i1": "bool", "bf16": "bfloat16"}


def main_parameters(text):
    """[(shape, dtype name)] of @main's parameters, or None if one is not a plain tensor."""
    m = re.search(r"func\.func (?:public )?@main\((.*?)\)\s*->", text)
    if not m:
        return None
    params = []
    for t in re.findall(r"%\w+: tensor<([^>]*)>", m.group(1)):
        *dims, element = t.split("x") if t else ["?"]
        if element not in DTYPES or not all(d.isdigit() for d in dims):
            return None
        params.append(([int(d) for d in dims], DTYPES[element]))
    return params


def random_input(shape, dtype, rng):
    if dtype == "bfloat16":
        import ml_dtypes
        return rng.uniform(-1, 1, shape).astype(ml_dtypes.bfloat16)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 10, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def run_model(kiln, model, work):
    path = ROOT / "tests" / "corpus" / "jax" / f"{model}.mlir"
    params = main_parameters(path.read_text())
    if params is None:
        return "skipped (a parameter gpu_check cannot generate)", True
    rng = np.random.default_rng(0)
    inputs = []
    for i, (shape, dtype) in enumerate(params):
        try:
            value = random_input(shape, dtype, rng)
        except ImportError:
            return "skipped (no ml_dtypes for bf16)", True
        p = work / f"{model}_in{i}.npy"
        np.save(p, value)
        inputs += ["--input", str(p)]
    results = {}
    for backend in ("cuda", "interpreter"):
        out = work / f"{model}_{backend}"
        run = subprocess.run([kiln, "run", "--backend", backend, str(path), *inputs, "--output-dir", str(out)],
                             capture_output=True, text=True, timeout=90)
        if run.returncode != 0:
            message = (run.stderr.strip().splitlines() or ["(no message)"])[0][:300]
            if backend == "cuda" and NOT_YET.search(message):
                return f"cannot compile on cuda yet: {message}", True
            return f"{backend} FAILED: {message}", False
        results[backend] = [np.load(f) for f in sorted(out.glob("result*.npy"))]
    worst = 0.0
    for got, want in zip(results["cuda"], results["interpreter"]):
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"MISMATCH: result {got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}", False
        if want.dtype.kind in "fc" or str(want.dtype) == "bfloat16":
            g, w = got.astype(np.float64), want.astype(np.float64)
            tolerance = 1e-2 if want.dtype.itemsize <= 2 else 1e-4
            if not np.allclose(g, w, rtol=tolerance, atol=tolerance / 10, equal_nan=True):
                return f"MISMATCH: max abs error {np.nanmax(np.abs(g - w)):.3g}", False
            worst = max(worst, float(np.nanmax(np.abs(g - w), initial=0)))
        elif not np.array_equal(got, want):
            return f"MISMATCH: {int(np.sum(got != want))} elements differ", False
    return f"matches the interpreter ({len(results['cuda'])} results, max abs error {worst:.3g})", True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--cuda", required=True, help="kiln test --backend cuda's output")
    parser.add_argument("--interpreter", required=True, help="kiln test --backend interpreter's output")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    ok = compare_corpus(args.cuda, args.interpreter)
    print("models (tests/corpus/jax, kiln run on cuda vs the interpreter, random inputs):")
    with tempfile.TemporaryDirectory() as work:
        for model in MODELS:
            try:
                verdict, good = run_model(args.kiln, model, pathlib.Path(work))
            except subprocess.TimeoutExpired:
                verdict, good = "TIMED OUT", False
            ok &= good
            print(f"  {model}: {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
