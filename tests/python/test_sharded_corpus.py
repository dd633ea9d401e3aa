"""The sharded JAX corpus (tests/corpus/sharded, scripts/gen_sharded_corpus.py):
each program, partitioned over its mesh and run on the cpu back end's devices
with `kiln run --spmd` (each device given its blocks of the inputs, the whole
results put together from the devices' blocks), returns what the
unpartitioned program returns on the interpreter: bitwise for integer
programs, within float tolerance otherwise (the partitioned sums add in
another order). A shard_map body (sdy.manual_computation) has no
unpartitioned meaning: those programs are compared with NumPy computing what
each device's body does. Each program is also checked to have been split: its
partitioned form (kiln-opt --pipeline=spmd) declares one partition per
device and has local shapes smaller than the whole ones.
"""
from __future__ import annotations

import pathlib
import re
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KILN = ROOT / "build" / "bin" / "kiln"
KILN_OPT = ROOT / "build" / "bin" / "kiln-opt"
CORPUS = ROOT / "tests" / "corpus" / "sharded"
PROGRAMS = sorted(CORPUS.glob("*.mlir"))

pytestmark = pytest.mark.skipif(not KILN.exists() or not KILN_OPT.exists(), reason="kiln is not built")

DTYPES = {"f32": np.float32, "i32": np.int32, "i64": np.int64, "ui32": np.uint32, "i1": np.bool_}


def main_parameters(text: str) -> list[tuple[tuple[int, ...], str]]:
    """The (shape, element type) of each parameter of @main."""
    header = re.search(r"func\.func public @main\((.*?)\)\s*->", text, re.S).group(1)
    params = []
    for m in re.finditer(r"%arg\d+: tensor<((?:\d+x)*)(\w+)>", header):
        shape = tuple(int(d) for d in m.group(1).split("x") if d)
        params.append((shape, m.group(2)))
    return params


def make_input(rng, shape, element, name):
    dtype = DTYPES[element]
    if "mlp_data_parallel" in name and element == "i32":  # class labels of 8 logits
        return rng.integers(0, 8, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, size=shape).astype(dtype)
    return (rng.standard_normal(size=shape) * 0.5).astype(dtype)


def shard_map_collectives(x):
    """shard_map over 4 devices of x's rows: block / psum(sum), all_gather's
    first 2 rows, ppermute i -> i + 1, psum_scatter of the block tiled 4 times."""
    blocks = np.split(x, 4)
    total = np.float32(sum(b.sum(dtype=np.float64) for b in blocks))
    return [np.concatenate([b / total for b in blocks]),
            np.concatenate([x[:2]] * 4),
            np.concatenate([blocks[(i - 1) % 4] for i in range(4)]),
            np.concatenate([sum(blocks)] * 4)]


NUMPY_REFERENCE = {"shard_map_collectives": shard_map_collectives}


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(KILN), "run", *args], capture_output=True, text=True, timeout=300)


def load_results(directory: pathlib.Path) -> list[np.ndarray]:
    files = sorted(directory.glob("result*.npy"), key=lambda p: int(re.search(r"\d+", p.stem).group()))
    return [np.load(f) for f in files]


def test_corpus_is_there():
    assert len(PROGRAMS) >= 7, PROGRAMS


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_partitioned_matches_whole(program: pathlib.Path, tmp_path: pathlib.Path):
    text = program.read_text()
    rng = np.random.default_rng(0)
    inputs = []
    for i, (shape, element) in enumerate(main_parameters(text)):
        path = tmp_path / f"arg{i}.npy"
        np.save(path, make_input(rng, shape, element, program.stem))
        inputs += ["--input", str(path)]
    assert inputs, "no parameters read off @main"

    if "sdy.manual_computation" in text:
        want = NUMPY_REFERENCE[program.stem](*[np.load(inputs[k]) for k in range(1, len(inputs), 2)])
    else:
        whole = run([str(program), "--backend=interpreter", "--output-dir", str(tmp_path / "whole"), *inputs])
        assert whole.returncode == 0, whole.stderr
        want = load_results(tmp_path / "whole")
    parts = run([str(program), "--backend=cpu", "--spmd", "--output-dir", str(tmp_path / "parts"), *inputs])
    assert parts.returncode == 0, parts.stderr
    got = load_results(tmp_path / "parts")
    assert len(want) == len(got) > 0
    for i, (w, g) in enumerate(zip(want, got)):
        assert w.shape == g.shape and w.dtype == g.dtype, (i, w.shape, g.shape, w.dtype, g.dtype)
        if np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i}")

    # It was split: one partition per device, and local shapes in @main.
    partitioned = subprocess.run([str(KILN_OPT), str(program), "--pipeline=spmd"], capture_output=True, text=True,
                                 timeout=120)
    assert partitioned.returncode == 0, partitioned.stderr
    mesh = re.search(r"sdy\.mesh @\w+ = <\[(.*?)\]", text).group(1)
    devices = int(np.prod([int(n) for n in re.findall(r'"[^"]+"=(\d+)', mesh)]))
    assert f"mhlo.num_partitions = {devices} : i32" in partitioned.stdout
    local = main_parameters(partitioned.stdout)
    whole_params = main_parameters(text)
    assert any(np.prod(l[0]) < np.prod(w[0]) for l, w in zip(local, whole_params)) or \
        "stablehlo.dynamic_slice" in partitioned.stdout, "nothing was split"
