"""StableHLO portable artifacts (MLIR bytecode with VHLO) read by kiln-opt.

Every corpus program is serialized by jaxlib at the oldest target version it
supports, a middle one and the current one, and at the targets for which it
writes the other bytecode versions; kiln's print of the artifact must
equal its print of the text form that jaxlib's own reader gives for the
artifact (VHLO-to-StableHLO legalization drops some defaults the source text
spells out, e.g. `precision = [DEFAULT, DEFAULT]`). Truncated and corrupted
artifacts must give an error, never a crash.
"""
import pathlib
import re
import random
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KILN_OPT = ROOT / "build" / "bin" / "kiln-opt"
CORPUS = sorted((ROOT / "tests" / "corpus").rglob("*.mlir"))

jaxlib = pytest.importorskip("jaxlib")
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402

# The minimum, a middle and the current target; 0.10.0, 0.12.0 and 0.14.0
# are where jaxlib writes bytecode versions 1, 3 and 4 (0.9.0 writes 0, the
# others 6).
VERSIONS = [stablehlo.get_minimum_version(), "0.10.0", "0.12.0", "0.14.0", "1.13.7",
            stablehlo.get_current_version()]


def serialize(text: str, version: str) -> bytes | None:
    try:
        with jax_mlir.make_ir_context():
            return stablehlo.serialize_portable_artifact(ir.Module.parse(text), version)
    except Exception:  # the program uses ops the target version lacks
        return None


def deserialize(artifact: bytes) -> str:
    with jax_mlir.make_ir_context() as context:
        return str(stablehlo.deserialize_portable_artifact(context, artifact))


def kiln_opt(path: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(KILN_OPT), "--generic", str(path)], capture_output=True, text=True, timeout=60)


def assert_reads_back_as_text_form(artifact, tmp_path):
    """kiln-opt prints the artifact exactly as it prints jaxlib's text form of
    it; returns that print."""
    path = tmp_path / "program.mlirbc"
    path.write_bytes(artifact)
    got = kiln_opt(path)
    assert got.returncode == 0, got.stderr
    reference = tmp_path / "reference.mlir"
    reference.write_text(deserialize(artifact))
    want = kiln_opt(reference)
    assert want.returncode == 0, want.stderr
    assert got.stdout == want.stdout
    return got.stdout


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_artifact_reads_back_as_the_text_form(program, version, tmp_path):
    text = program.read_text()
    artifact = serialize(text, version)
    if artifact is None:
        pytest.skip(f"jaxlib cannot serialize {program.stem} at {version}")
    assert_reads_back_as_text_form(artifact, tmp_path)


# Discardable attributes stay builtin in an artifact, dense elements too
# (JAX writes one on a maximal mesh: `stablehlo.mesh = {device_ids = dense<0>
# : tensor<1xi64>}`).
BUILTIN_DENSE = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a {kiln_test.ids = dense<[3, 1]> : tensor<2xi64>, kiln_test.flags = dense<true> : tensor<3xi1>,
                              kiln_test.scale = dense<2.5> : tensor<f32>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
def test_builtin_dense_attributes_read_back(tmp_path):
    artifact = serialize(BUILTIN_DENSE, VERSIONS[-1])
    assert artifact is not None
    got = assert_reads_back_as_text_form(artifact, tmp_path)
    assert "dense<[3, 1]> : tensor<2xi64>" in got, got


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
def test_corrupt_artifacts_give_errors_not_crashes(tmp_path):
    artifact = serialize((ROOT / "tests/corpus/jax/einsum.mlir").read_text(), VERSIONS[-1])
    assert artifact is not None
    rng = random.Random(23)
    cases = [artifact[:n] for n in range(0, len(artifact), 7)]
    for _ in range(300):
        data = bytearray(artifact)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(4, len(data))] = rng.randrange(256)
        cases.append(bytes(data))
    path = tmp_path / "bad.mlirbc"
    for data in cases:
        path.write_bytes(data)
        got = subprocess.run([str(KILN_OPT), str(path)], capture_output=True, timeout=30)
        assert got.returncode in (0, 1), (got.returncode, got.stderr[-500:])


def _exported_programs():
    """Functions exported by jax.export as JAX hands them to a plugin: the
    default target version, real source locations, composites, custom calls
    with sdy sharding rules."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def mixed(x, y):
        a = jnp.sin(x) @ y.T
        b = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, a))[1]
        return jax.scipy.special.erfinv(jnp.tanh(b) * 0.5), lax.top_k(x[0], 2)[0], jnp.linalg.qr(x)[0]

    def train_step(w, x):
        loss = lambda w: jnp.mean(jax.nn.relu(x @ w) ** 2)
        return w - 0.1 * jax.grad(loss)(w)

    def conv_pool(x, k):
        y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def indexing(x, i):
        return x[i].sum(), x.at[i].add(1.0), jnp.cumsum(x, axis=0), jnp.argsort(x[:, 0])

    def scan_random(key, x):
        noise = jax.random.normal(key, x.shape, dtype=jnp.bfloat16).astype(jnp.float32)
        return lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x + noise)

    f32 = jnp.float32
    S = jax.ShapeDtypeStruct
    rbg_uniform = lambda k: jax.random.uniform(jax.random.wrap_key_data(k, impl="rbg"), (4,))  # noqa: E731
    max_pool_grad = lambda x: jax.grad(  # noqa: E731
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID").sum())(x)
    return {
        "fft": (lambda x: jnp.fft.rfft(x).real, (S((8,), f32),)),
        "rng_bit_generator": (rbg_uniform, (S((4,), jnp.uint32),)),
        "triangular_solve": (lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True),
                             (S((3, 3), f32), S((3, 2), f32))),
        "case": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x), (S((), jnp.int32), S((3,), f32))),
        "if": (lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), (S((), jnp.bool_), S((3,), f32))),
        "complex": (lambda x: jnp.abs(jnp.exp(1j * x)) + jnp.angle(x + 1j), (S((3,), f32),)),
        "sort_two_operands": (lambda x, y: lax.sort((x, y), num_keys=1), (S((5,), f32), S((5,), jnp.int32))),
        "integer_ops": (lambda x: (x >> 2) ^ (x << 1) | lax.population_count(x) - lax.clz(x), (S((4,), jnp.uint8),)),
        "half_types": (lambda x: (x.astype(jnp.bfloat16) * 2).astype(jnp.float16), (S((4,), f32),)),
        "select_and_scatter": (max_pool_grad, (S((4, 4), f32),)),
        "bool_constants": (lambda x: jnp.where(jnp.array([True, False, True]), x, 0.0), (S((3,), f32),)),
        "mixed": (mixed, (S((4, 4), f32), S((4, 4), f32))),
        "train_step": (train_step, (S((8, 4), f32), S((16, 8), f32))),
        "conv_pool": (conv_pool, (S((2, 8, 8, 3), f32), S((3, 3, 3, 4), f32))),
        "indexing": (indexing, (S((6, 5), f32), S((3,), jnp.int32))),
        "scan_random": (scan_random, (S((2,), jnp.uint32), S((5, 3), f32))),
    }


def _without_position_locs(text: str) -> str:
    # Block arguments' locations are positions in the text kiln parsed (the
    # decoded artifact or the reference file), not locations from JAX.
    return re.sub(r' loc\("[^"]*(?:decoded bytecode\)|reference\.mlir)":\d+:\d+\)', "", text)


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
@pytest.mark.parametrize("name", sorted(_exported_programs()))
def test_jax_export_artifact_reads_back_with_locations(name, tmp_path):
    import jax
    from jax import export

    fn, avals = _exported_programs()[name]
    exported = export.export(jax.jit(fn))(*avals)
    artifact = tmp_path / "program.mlirbc"
    artifact.write_bytes(exported.mlir_module_serialized)
    reference = tmp_path / "reference.mlir"
    reference.write_text(exported.mlir_module())
    run = lambda p: subprocess.run([str(KILN_OPT), "--print-debuginfo", str(p)], capture_output=True, text=True,
                                   timeout=60)
    got, want = run(artifact), run(reference)
    assert got.returncode == 0, got.stderr
    assert want.returncode == 0, want.stderr
    assert _without_position_locs(got.stdout) == _without_position_locs(want.stdout)


def test_kiln_compile_takes_an_artifact():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    kiln = pytest.importorskip("kiln")
    fn = lambda x, y: jnp.tanh(x @ y) + 1.0  # noqa: E731
    exported = export.export(jax.jit(fn))(jax.ShapeDtypeStruct((3, 4), jnp.float32),
                                          jax.ShapeDtypeStruct((4, 2), jnp.float32))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    y = np.ones((4, 2), np.float32)
    compiled = kiln.compile(exported.mlir_module_serialized)
    np.testing.assert_allclose(np.asarray(compiled(x, y)), np.asarray(fn(x, y)), rtol=1e-5, atol=1e-6)
    with pytest.raises(kiln.KilnError, match="invalid StableHLO bytecode"):
        kiln.compile(exported.mlir_module_serialized[:100])


SHARDED_EXPORTS = r"""
import os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp, numpy as np
from jax import export
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
cases = {"rows": (P("x", None), P("x", None)), "both_axes": (P(("x", "y"), None), P(None, "y")),
         "replicated": (P(None, "y"), P())}
for name, (pin, pout) in cases.items():
    f = jax.jit(lambda a: jnp.tanh(a) @ a.T, in_shardings=NamedSharding(mesh, pin),
                out_shardings=NamedSharding(mesh, pout))
    e = export.export(f)(jax.ShapeDtypeStruct((8, 8), jnp.float32))
    open(f"{sys.argv[1]}/{name}.mlirbc", "wb").write(e.mlir_module_serialized)
    open(f"{sys.argv[1]}/{name}.mlir", "w").write(e.mlir_module())
# shard_alike (sdy.sharding_group) and shard_map (sdy.manual_computation, sdy.return).
from jax.experimental.shard_alike import shard_alike
def grouped(a, b):
    x, y = shard_alike(a, b)
    return jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x + y)
rows = NamedSharding(mesh, P("x"))
e = export.export(jax.jit(grouped, in_shardings=(rows, rows)))(*[jax.ShapeDtypeStruct((8, 4), jnp.float32)] * 2)
open(f"{sys.argv[1]}/grouped.mlirbc", "wb").write(e.mlir_module_serialized)
open(f"{sys.argv[1]}/grouped.mlir", "w").write(e.mlir_module())
# psum of complex values in shard_map: the sdy ops' types stay builtin in
# the artifact (builtin complex<f32>, type code 9, which kiln's reader
# refused: "builtin type code 9 is not supported").
psum = jax.shard_map(lambda v: jax.lax.psum(v, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
e = export.export(jax.jit(psum))(jax.ShapeDtypeStruct((8, 4), jnp.complex64))
open(f"{sys.argv[1]}/complex_psum.mlirbc", "wb").write(e.mlir_module_serialized)
open(f"{sys.argv[1]}/complex_psum.mlir", "w").write(e.mlir_module())
"""


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
def test_sharded_jax_export_keeps_sdy_mesh_and_shardings(tmp_path):
    # Several CPU devices need XLA_FLAGS before jax starts: a process of its own.
    subprocess.run([sys.executable, "-c", SHARDED_EXPORTS, str(tmp_path)], check=True, capture_output=True,
                   timeout=300)
    for name in ("rows", "both_axes", "replicated", "grouped"):
        got, want = kiln_opt(tmp_path / f"{name}.mlirbc"), kiln_opt(tmp_path / f"{name}.mlir")
        assert got.returncode == 0, got.stderr
        assert want.returncode == 0, want.stderr
        assert "sdy.mesh" in got.stdout and "#sdy.sharding<@mesh" in got.stdout
        assert got.stdout == want.stdout, name
    grouped = kiln_opt(tmp_path / "grouped.mlirbc").stdout
    assert '"sdy.sharding_group"' in grouped and '"sdy.manual_computation"' in grouped
    got, want = kiln_opt(tmp_path / "complex_psum.mlirbc"), kiln_opt(tmp_path / "complex_psum.mlir")
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    assert '"sdy.manual_computation"' in got.stdout and "tensor<4x4xcomplex<f32>>" in got.stdout, got.stdout
