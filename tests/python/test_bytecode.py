"""StableHLO portable artifacts (MLIR bytecode with VHLO) read by kiln-opt.

Every corpus program is serialized by jaxlib at the oldest target version it
supports, a middle one and the current one; kiln's print of the artifact must
equal its print of the text form that jaxlib's own reader gives for the
artifact (VHLO-to-StableHLO legalization drops some defaults the source text
spells out, e.g. `precision = [DEFAULT, DEFAULT]`). Truncated and corrupted
artifacts must give an error, never a crash.
"""
import pathlib
import random
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KILN_OPT = ROOT / "build" / "bin" / "kiln-opt"
CORPUS = sorted((ROOT / "tests" / "corpus").rglob("*.mlir"))

jaxlib = pytest.importorskip("jaxlib")
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402

VERSIONS = [stablehlo.get_minimum_version(), "1.13.7", stablehlo.get_current_version()]


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


@pytest.mark.skipif(not KILN_OPT.exists(), reason="kiln-opt is not built")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_artifact_reads_back_as_the_text_form(program, version, tmp_path):
    text = program.read_text()
    artifact = serialize(text, version)
    if artifact is None:
        pytest.skip(f"jaxlib cannot serialize {program.stem} at {version}")
    path = tmp_path / "program.mlirbc"
    path.write_bytes(artifact)
    got = kiln_opt(path)
    assert got.returncode == 0, got.stderr
    reference = tmp_path / "reference.mlir"
    reference.write_text(deserialize(artifact))
    want = kiln_opt(reference)
    assert want.returncode == 0, want.stderr
    assert got.stdout == want.stdout


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
