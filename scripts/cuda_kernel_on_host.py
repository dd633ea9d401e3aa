#!/usr/bin/env python3
"""A cuda kernel's LLVM IR run on the host, as one thread of one block.

Usage: scripts/cuda_kernel_on_host.py FILE.mlir  (a program whose @main the
cuda pipeline makes one kernel, with no warp shuffles -- a loop, gather,
a row reduce whose rows each thread folds whole (lane 0 of one warp),
scatter, select_and_scatter, contraction, random, triangular_solve or
cholesky kernel (shared memory becomes a global array and a barrier
nothing: one thread) -- its parameters @main's arguments (a fusion's in its
operands' order), then its results). The kernel's .ll from
`kiln-opt --pipeline=cuda --dump-dir` has its thread and block ids made 0
and its block and grid sizes 1, so its grid-stride loops visit every
element in one thread; llc compiles it for the host, a C driver runs it on
random inputs (small integers: many ties, negative indices; with
KILN_HOST_INPUTS=normal, normal floats and unsigned integers over their
whole range; =bits, floats of random bit patterns; =spd, square float or
complex matrices made Hermitian positive definite, X X^H + n I, the
rest normal; =sparse, small integers, 70% of them zero (singular
matrices, zero pivots); KILN_HOST_SEED picks
the draw) and its results
are compared bitwise with `kiln run --backend interpreter`. That checks the
kernel's index arithmetic and per-element code as emitted, not the PTX, the
parallel schedule or atomics under contention. KILN_HOST_EXPLAIN=1 prints
the first differing parts where a result differs. Needs llc (LLVM 19), a C
compiler and NumPy; a development check, not part of the test suite.
"""
import os, sys, re, subprocess, pathlib, numpy as np, shutil, tempfile
ROOT = pathlib.Path(__file__).resolve().parent.parent
src = pathlib.Path(sys.argv[1])
work = pathlib.Path(tempfile.mkdtemp(prefix="kiln_host_kernel_"))
K = str(pathlib.Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")) / "bin") + "/"
LLC = os.environ.get("LLC", "/usr/lib/llvm-19/bin/llc")
subprocess.run([K + "kiln-opt", str(src), "--pipeline=cuda", "--dump-dir", str(work / "d"), "-o", "/dev/null"], check=True, capture_output=True)
lls = sorted((work / "d").glob("k*.ll")); assert len(lls) == 1, lls
s = lls[0].read_text(); name = lls[0].stem
kernels_txt = (work / "d" / "cuda_kernels.txt").read_text()
# A kernel with warp shuffles (a row reduce) runs as one whole block of the
# size codegen chose, a POSIX thread per CUDA thread: shared memory is one
# global array all of them see, a barrier waits for the block, a shuffle
# for the 32 lanes of its warp (each lane publishes its value, the warp
# waits, each reads its partner's, the warp waits again). Without
# shuffles, one thread of one block: shared memory is its own, a barrier
# waits for nobody.
block = int(re.search(r'grid \d+ x block (\d+)', kernels_txt).group(1)) if "shfl" in s else 1
s = s.replace(" addrspace(3)", "")
if block > 1:
    s = re.sub(r'call void @llvm\.nvvm\.barrier0\(\)', 'call void @host_barrier()', s)
    s = re.sub(r'call (float|i32) @llvm\.nvvm\.shfl\.sync\.bfly\.(f32|i32)\(i32 -1, (?:float|i32) ([^,]+), i32 (\d+), i32 31\)',
               r'call \1 @host_shfl_\2(\1 \3, i32 \4)', s)
    assert "llvm.nvvm.shfl" not in s.split("declare")[0], "a shuffle the host cannot run"
    s = re.sub(r'call i32 @llvm\.nvvm\.read\.ptx\.sreg\.tid\.x\(\)', 'call i32 @host_tid()', s)
    s = re.sub(r'^declare .*@llvm\.nvvm\.(barrier0|shfl).*$', '', s, flags=re.M)
    s += "\ndeclare void @host_barrier()\ndeclare float @host_shfl_f32(float, i32)\ndeclare i32 @host_shfl_i32(i32, i32)\ndeclare i32 @host_tid()\n"
else:
    s = re.sub(r'^\s*call void @llvm\.nvvm\.barrier0\(\)\s*$', '', s, flags=re.M)
    s = re.sub(r'^declare .*@llvm\.nvvm\.barrier0.*$', '', s, flags=re.M)
s = re.sub(r'^target (datalayout|triple).*$', '', s, flags=re.M).replace('define ptx_kernel void', 'define void')
s = re.sub(r'call i32 @llvm\.nvvm\.read\.ptx\.sreg\.(tid|ctaid)\.x\(\)', 'add i32 0, 0', s)
# A row kernel with a warp per row and no shuffles (a fold no lane shares)
# runs as lane 0 of a one-warp block: every lane folds the whole row, lane
# 0 stores the row's result (whatever lane 0 does not store stays zero and
# differs).
warp = "a warp per row" in kernels_txt
s = re.sub(r'call i32 @llvm\.nvvm\.read\.ptx\.sreg\.ntid\.x\(\)', f'add i32 {block if block > 1 else 32 if warp else 1}, 0', s)
s = re.sub(r'call i32 @llvm\.nvvm\.read\.ptx\.sreg\.nctaid\.x\(\)', 'add i32 1, 0', s)
s = re.sub(r'^declare .*@llvm\.nvvm\.read.*$', '', s, flags=re.M)
(work / "k.ll").write_text(s)
nparams = len(re.search(r'define void @\w+\((.*?)\)', s).group(1).split(","))
sig = re.search(r'func\.func @main\((.*?)\)\s*->\s*(.*?)\s*\{', src.read_text(), re.S)
def types(text): return re.findall(r'tensor<((?:[^<>]|<[^<>]*>)*)>', text)
ins, outs = types(sig.group(1)), types(sig.group(2))
assert nparams == len(ins) + len(outs), (nparams, ins, outs)
try:  # the narrow floats numpy lacks
    import ml_dtypes
    NARROW = {"bf16": ml_dtypes.bfloat16, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu}
except ImportError:
    NARROW = {}
dt = {**NARROW, "f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i64": np.int64, "ui32": np.uint32,
      "ui64": np.uint64, "i16": np.int16, "i8": np.int8, "ui8": np.uint8, "i1": np.bool_,
      "complex<f32>": np.complex64, "complex<f64>": np.complex128}
def parse(t):
    dims, element = re.match(r'((?:\d+x)*)(.*)', t).groups()
    return [int(p) for p in dims.split("x")[:-1]], dt[element]
# KILN_HOST_INPUTS=normal: floats from a standard normal (sums that round
# at every step), unsigned integers over their whole range (random states);
# KILN_HOST_INPUTS=bits: floats of random bit patterns (NaNs with payloads,
# infinities, -0: for TOTALORDER).
FLOATS = os.environ.get("KILN_HOST_INPUTS", "small")
# KILN_HOST_TOLERANCE=1e-6: float results may differ from the
# interpreter's by this much, relative to the largest magnitude.
TOLERANCE = float(os.environ.get("KILN_HOST_TOLERANCE", "0"))
rng = np.random.default_rng(int(os.environ.get("KILN_HOST_SEED", "5"))); args = []
for i, t in enumerate(ins):
    shape, d = parse(t)
    if d == np.bool_: a = rng.integers(0, 2, shape).astype(d)
    elif FLOATS == "edges" and (np.issubdtype(d, np.floating) or d in NARROW.values()) and np.dtype(d).itemsize > 1:
        # Every exponent field with the mantissas at the rounding edges
        # (0, 1, around a half and three quarters, all ones), both signs, in order,
        # repeated: subnormals, ties, overflow, Inf and NaN.
        w = np.dtype(d).itemsize * 8; m = {16: 7 if d in NARROW.values() else 10, 32: 23, 64: 52}[w]
        edges = [0, 1, (1 << (m - 1)) - 1, 1 << (m - 1), (1 << (m - 1)) + 1, (3 << (m - 2)) - 1, 3 << (m - 2),
                 (3 << (m - 2)) + 1, (1 << m) - 1]
        bits = [(sign << (w - 1)) | (e << m) | f for sign in (0, 1) for e in range(1 << (w - 1 - m)) for f in edges]
        a = np.resize(np.array(bits, dtype=np.uint64).astype(f"u{w // 8}"), int(np.prod(shape))).view(d).reshape(shape)
    elif d in NARROW.values() and np.dtype(d).itemsize == 1:  # every bit pattern, in order
        a = (np.arange(int(np.prod(shape))) % 256).astype(np.uint8).view(d).reshape(shape)
    elif d in NARROW.values() and FLOATS == "bits":
        a = rng.integers(0, 1 << 16, shape).astype(np.uint16).view(d)
    elif d in NARROW.values() and FLOATS in ("normal", "spd"): a = rng.standard_normal(shape).astype(d)
    elif FLOATS == "spd" and len(shape) >= 2 and shape[-1] == shape[-2] and np.issubdtype(d, np.inexact):
        n = shape[-1]; x = rng.standard_normal(shape)
        if np.issubdtype(d, np.complexfloating): x = x + 1j * rng.standard_normal(shape)
        a = (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(d)
    elif FLOATS == "sparse" and np.issubdtype(d, np.inexact):  # mostly zeros: singular matrices, zero pivots
        a = rng.integers(-3, 4, shape) * (rng.random(shape) < 0.3)
        if np.issubdtype(d, np.complexfloating): a = a + 1j * (rng.integers(-3, 4, shape) * (rng.random(shape) < 0.3))
        a = a.astype(d)
    elif np.issubdtype(d, np.complexfloating) and FLOATS == "small":  # ties in either part
        a = (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(d)
    elif np.issubdtype(d, np.complexfloating) and FLOATS == "bits":
        w = np.dtype(d).itemsize // 2
        a = rng.integers(0, 1 << (8 * w), (*shape, 2), dtype=np.uint64).astype(f"u{w}").view(f"f{w}").view(d).reshape(shape)
    elif np.issubdtype(d, np.complexfloating):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)
    elif np.issubdtype(d, np.floating) and FLOATS == "bits":  # every pattern: NaN payloads, infinities, -0
        a = rng.integers(0, 1 << (8 * np.dtype(d).itemsize), shape, dtype=np.uint64).astype(f"u{np.dtype(d).itemsize}").view(d)
    elif np.issubdtype(d, np.floating) and FLOATS in ("normal", "spd"): a = rng.standard_normal(shape).astype(d)
    elif np.issubdtype(d, np.unsignedinteger) and FLOATS == "normal": a = rng.integers(0, np.iinfo(d).max, shape, dtype=d, endpoint=True)
    else: a = rng.integers(-3, 12, shape).astype(d)
    np.save(work / f"in{i}.npy", a); a.tofile(work / f"in{i}.bin"); args.append(a)
sizes = [a.nbytes for a in args] + [int(np.prod(parse(t)[0])) * np.dtype(parse(t)[1]).itemsize for t in outs]
c = ["#include <math.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "#include <pthread.h>",
     f"void {name}({', '.join(['void*'] * nparams)});"]
if block > 1:
    c += [f"#define BLOCK {block}", "static pthread_barrier_t block_barrier, warp_barrier[BLOCK / 32];",
          "static unsigned exchange[BLOCK]; static __thread int tid;", "int host_tid(void) { return tid; }",
          "void host_barrier(void) { pthread_barrier_wait(&block_barrier); }",
          "unsigned host_shfl_i32(unsigned v, int lanes) { exchange[tid] = v; pthread_barrier_wait(&warp_barrier[tid / 32]);",
          "  unsigned r = exchange[tid ^ lanes]; pthread_barrier_wait(&warp_barrier[tid / 32]); return r; }",
          "float host_shfl_f32(float v, int lanes) { unsigned u; memcpy(&u, &v, 4); u = host_shfl_i32(u, lanes); memcpy(&v, &u, 4); return v; }",
          f"static void* args[{nparams}];",
          f"static void* thread_main(void* t) {{ tid = (int)(long)t; {name}({', '.join(f'args[{i}]' for i in range(nparams))}); return 0; }}"]
# libdevice's double functions the kernel calls, as the C library's (the
# interpreter's): results then differ from a device's by libdevice's ulps.
for fn in sorted(set(re.findall(r'^declare double @__nv_(\w+)\(double\)', s, flags=re.M))):
    c.append(f"double __nv_{fn}(double x) {{ return {fn}(x); }}")
for fn in sorted(set(re.findall(r'^declare double @__nv_(\w+)\(double, double\)', s, flags=re.M))):
    c.append(f"double __nv_{fn}(double x, double y) {{ return {fn}(x, y); }}")
c.append("int main() {")
for i, n in enumerate(sizes):
    c.append(f"  void* p{i} = calloc(1, {n} + 64);")
    if i < len(ins): c.append(f'  {{ FILE* f = fopen("{work}/in{i}.bin", "rb"); fread(p{i}, 1, {n}, f); fclose(f); }}')
# A fusion's parameters are its operands, which the pipeline may have
# ordered otherwise than @main's arguments: pass them in its order.
order = list(range(len(ins)))
last = sorted((work / "d").glob("*.mlir"))[-1].read_text()
if (fusion := re.search(r'"kiln\.fusion"\(([^)]*)\)', last)):
    order = [int(a.strip()[len("%arg"):]) for a in fusion.group(1).split(",")]
    assert sorted(order) == list(range(len(ins))), ("the fusion reads other values than @main's arguments", order)
call_args = [f'p{i}' for i in order] + [f'p{len(ins) + j}' for j in range(len(outs))]
if block > 1:
    c += [f"  args[{i}] = {a};" for i, a in enumerate(call_args)]
    c += ["  pthread_barrier_init(&block_barrier, 0, BLOCK);",
          "  for (int w = 0; w < BLOCK / 32; ++w) pthread_barrier_init(&warp_barrier[w], 0, 32);",
          "  pthread_t threads[BLOCK]; pthread_attr_t attr; pthread_attr_init(&attr); pthread_attr_setstacksize(&attr, 1 << 18);",
          "  for (long t = 0; t < BLOCK; ++t) if (pthread_create(&threads[t], &attr, thread_main, (void*)t)) { perror(\"pthread_create\"); return 1; }",
          "  for (int t = 0; t < BLOCK; ++t) pthread_join(threads[t], 0);"]
else:
    c.append(f"  {name}({', '.join(call_args)});")
for j in range(len(outs)):
    i = len(ins) + j; c.append(f'  {{ FILE* f = fopen("{work}/out{j}.bin", "wb"); fwrite(p{i}, 1, {sizes[i]}, f); fclose(f); }}')
c.append("  return 0; }")
(work / "drv.c").write_text("\n".join(c))
subprocess.run([LLC, "-O1", "-filetype=obj", "-relocation-model=pic", str(work / "k.ll"), "-o", str(work / "k.o")], check=True)
subprocess.run([os.environ.get("CC", "cc"), "-O1", str(work / "drv.c"), str(work / "k.o"), "-o", str(work / "drv"), "-lm", "-lpthread"], check=True)
subprocess.run([str(work / "drv")], check=True)
subprocess.run([K + "kiln", "run", "--backend", "interpreter", str(src)] + sum([["--input", str(work / f"in{i}.npy")] for i in range(len(ins))], []) + ["--output-dir", str(work / "ref")], check=True, capture_output=True)
failed = False
for j, t in enumerate(outs):
    ref = np.load(work / "ref" / f"result{j}.npy"); got = np.fromfile(work / f"out{j}.bin", dtype=ref.dtype).reshape(ref.shape)
    same = ref.tobytes() == got.tobytes()
    verdict = "bitwise equal to" if same else "DIFFERS from"
    if not same and np.issubdtype(ref.dtype, np.inexact):
        # NaN payloads are not specified (PTX makes every NaN result canonical);
        # a complex number's parts are compared as floats.
        parts = lambda x: x.view(f"f{x.itemsize // 2}") if np.issubdtype(x.dtype, np.complexfloating) else x
        r, g = parts(np.atleast_1d(ref)), parts(np.atleast_1d(got))
        both = np.isnan(r) & np.isnan(g)
        if np.array_equal(r.view(f"u{r.itemsize}")[~both], g.view(f"u{r.itemsize}")[~both]):
            verdict = f"equal, but for the payloads of {both.sum()} NaNs, to"
            same = True
        elif os.environ.get("KILN_HOST_EXPLAIN"):
            differ = (r.view(f"u{r.itemsize}") != g.view(f"u{r.itemsize}")) & ~both
            print("differing (interpreter, kernel):", list(zip(r[differ][:6], g[differ][:6])),
                  f"; {int(differ.sum())} of {r.size} parts, {int((~np.isfinite(r[differ])).sum())} of them not finite in the interpreter's")
    if not same and TOLERANCE and (np.issubdtype(ref.dtype, np.floating) or np.issubdtype(ref.dtype, np.complexfloating)):
        # Kernels whose sums run in another order than the interpreter's
        # (an fft over several dims) or call libdevice: within rounding.
        error = float(np.max(np.abs(got.astype(np.complex128) - ref)) / max(float(np.max(np.abs(ref))), 1e-300))
        if error <= TOLERANCE:
            verdict = f"within {error:.1e} (of the largest magnitude; tolerance {TOLERANCE:g}) of"
            same = True
    failed = failed or not same
    print(f"{src.name} {name}: result {j} tensor<{t}>: {verdict} the interpreter's ({ref.size} elements)")
shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
