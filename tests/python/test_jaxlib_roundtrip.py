"""kiln's printed IR against the real StableHLO parser and printer in jaxlib.

For every lit round-trip file and every program under tests/corpus/, each
`// -----` chunk is printed by kiln-opt (pretty and --generic); jaxlib must
accept kiln's text, and jaxlib's printing of it must equal jaxlib's printing
of the original. Files whose ops jaxlib's MLIR does not have (the check.*
test dialect, quantized types, ...) are listed in JAXLIB_UNSUPPORTED and
checked to be rejected by jaxlib, so the list cannot silently grow stale.

kiln-opt is found in $KILN_BUILD_DIR/bin (default <repo>/build/bin), as lit does.
"""
import os
import pathlib
import subprocess

import pytest

ir = pytest.importorskip("jaxlib.mlir.ir", reason="jaxlib is needed to compare with MLIR's own printer")
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402  (after the importorskip)

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("KILN_BUILD_DIR", REPO / "build"))
KILN_OPT = BUILD_DIR / "bin" / "kiln-opt"

ROUNDTRIP_DIR = REPO / "tests" / "lit" / "roundtrip"
CORPUS_DIR = REPO / "tests" / "corpus"

# Round-trip files that use what jaxlib's MLIR build lacks, with the reason.
JAXLIB_UNSUPPORTED = {
    "kiln_only.mlir": "check.* ops, interpreter.* ops, async_start/async_done, collective_reduce and !quant types "
                      "are not registered in jaxlib's MLIR",
}
# kiln_opt_*.mlir files test kiln-opt itself (bad input, --verify-diagnostics,
# unregistered dialects), not programs.
TOOL_TEST_PREFIX = "kiln_opt_"


def _files():
    files = sorted(p for p in ROUNDTRIP_DIR.glob("*.mlir") if not p.name.startswith(TOOL_TEST_PREFIX))
    if CORPUS_DIR.is_dir():
        files += sorted(p for p in CORPUS_DIR.rglob("*.mlir"))
    return files


def _chunks(path):
    """(index, text) of each `// -----` chunk of a file."""
    text = path.read_text()
    parts = []
    current = []
    for line in text.splitlines(keepends=True):
        if line.strip() == "// -----":
            parts.append("".join(current))
            current = []
        else:
            current.append(line)
    parts.append("".join(current))
    return [(i, p) for i, p in enumerate(parts) if p.strip()]


def _cases():
    for path in _files():
        if path.name in JAXLIB_UNSUPPORTED:
            continue
        for index, _ in _chunks(path):
            yield pytest.param(path, index, id=f"{path.relative_to(REPO)}#{index}")


@pytest.fixture(scope="module")
def context():
    return jax_mlir.make_ir_context()


def _jaxlib_print(context, text):
    with context:
        return str(ir.Module.parse(text))


def _kiln_opt(text, *flags):
    assert KILN_OPT.exists(), f"{KILN_OPT} not built (set KILN_BUILD_DIR)"
    result = subprocess.run([str(KILN_OPT), "-", *flags], input=text, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"kiln-opt {' '.join(flags)} failed:\n{result.stderr}"
    return result.stdout


@pytest.mark.parametrize("form", ["pretty", "generic"])
@pytest.mark.parametrize("path,index", list(_cases()))
def test_jaxlib_accepts_kiln_output(context, path, index, form):
    source = dict(_chunks(path))[index]
    expected = _jaxlib_print(context, source)
    printed = _kiln_opt(source, *(["--generic"] if form == "generic" else []))
    assert _jaxlib_print(context, printed) == expected


def test_there_are_programs_to_compare():
    assert len(list(_cases())) > 10


@pytest.mark.parametrize("name", sorted(JAXLIB_UNSUPPORTED))
def test_unsupported_files_are_really_outside_jaxlib(context, name):
    """Each excluded file exists, kiln round-trips it, and jaxlib rejects it."""
    path = ROUNDTRIP_DIR / name
    assert path.exists(), f"{name} is listed in JAXLIB_UNSUPPORTED but does not exist"
    for _, source in _chunks(path):
        printed = _kiln_opt(source)
        assert _kiln_opt(printed) == printed
    rejected = 0
    for _, source in _chunks(path):
        try:
            _jaxlib_print(context, source)
        except Exception:  # jaxlib raises MLIRError / ValueError
            rejected += 1
    assert rejected > 0, f"jaxlib accepts all of {name}: move it out of JAXLIB_UNSUPPORTED"
