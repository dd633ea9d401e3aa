"""Unmodified JAX through the plugin, API by API: about two hundred
functions of jax.numpy, jax.lax, jax.nn, jax.scipy, jax.random and
jax.image (elementwise math at its edges, reductions, sorting, indexing,
linear algebra, FFTs, convolutions, control flow, autodiff, dtypes), each
run with jax.jit on a kiln device and on XLA:CPU in the same process and
compared; then gradients, larger and batched inputs in f32 and in f64 (x64).
A fourth set pins down edges (special values, failing factorizations, odd
windows). One subprocess runs each set; each case is one test here. It found
jnp.linalg.eigvals failing on kiln (a sort comparator reading constants from
outside it: the sink_constants pass) and jax.grad of a lax.scan RNN's weights
silently wrong (a loop variable accumulating a dot was updated in place
before the dot was summed into it: cpu flat loops).
"""

import re

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

HARNESS = r'''
kiln_device, cpu_device = jax.devices("kiln")[0], jax.devices("cpu")[0]

def run_on(device, fn, arg):
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(jax.jit(fn)(jax.device_put(arg, device)))]

def difference(got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} where XLA:CPU gives {want.dtype}{list(want.shape)}"
    if got.dtype.kind in "fc":
        wide = np.complex128 if got.dtype.kind == "c" else np.float64
        if np.allclose(got.astype(wide), want.astype(wide), rtol=TOLERANCE, atol=TOLERANCE / 10, equal_nan=True):
            return None
    elif np.array_equal(got, want):
        return None
    return f"kiln {got.ravel()[:8]} where XLA:CPU gives {want.ravel()[:8]}"

for name, (fn, arg) in cases.items():
    try:
        want = run_on(cpu_device, fn, arg)
        got = run_on(kiln_device, fn, arg)
        problems = [d for d in map(difference, got, want) if d] if len(got) == len(want) else ["result count"]
        detail = "; ".join(problems)
        print(json.dumps({"name": name, "ok": not problems, "detail": detail}), flush=True)
    except Exception:
        print(json.dumps({"name": name, "ok": False, "detail": traceback.format_exc()[-2000:]}), flush=True)
'''

# Elementwise math at its edges, reductions, sorting, indexing, linear
# algebra, FFTs, convolutions, control flow and dtypes, on small inputs.
API_PROGRAM = r'''
TOLERANCE = 2e-3
import json, sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import jax.scipy as jsp

r = np.random.default_rng(0)
A = r.standard_normal((6, 5)).astype(np.float32)
B = r.standard_normal((5, 4)).astype(np.float32)
S = r.standard_normal((5, 5)).astype(np.float32); SPD = S @ S.T + 5 * np.eye(5, dtype=np.float32)
v = r.standard_normal(17).astype(np.float32)
pos = np.abs(v) + 0.1
iv = r.integers(-20, 20, 17).astype(np.int32)
img = r.standard_normal((2, 9, 9, 3)).astype(np.float32)
ker = r.standard_normal((3, 3, 3, 4)).astype(np.float32)
key = jax.random.key(0)
C = (A[:5,:5] + 1j * S).astype(np.complex64)
cases = {
 "abs": (jnp.abs, v), "sign": (jnp.sign, v), "floor": (jnp.floor, v*3), "ceil": (jnp.ceil, v*3), "round": (jnp.round, v*3),
 "rint": (jnp.rint, v*3), "trunc": (jnp.trunc, v*3), "exp2": (jnp.exp2, v), "expm1": (jnp.expm1, v), "log1p": (jnp.log1p, pos),
 "log2": (jnp.log2, pos), "log10": (jnp.log10, pos), "sinh": (jnp.sinh, v), "cosh": (jnp.cosh, v), "arcsinh": (jnp.arcsinh, v),
 "arccos": (jnp.arccos, v/4), "arctan2": (lambda x: jnp.arctan2(x, x[::-1]), v), "hypot": (lambda x: jnp.hypot(x, 2*x), v),
 "fmod": (lambda x: jnp.fmod(x*5, 1.3), v), "remainder": (lambda x: jnp.remainder(x*5, 1.3), v), "mod_int": (lambda x: x % 7, iv),
 "floor_divide_int": (lambda x: x // 3, iv), "floor_divide": (lambda x: x // 0.7, v), "power_int": (lambda x: x ** 3, iv),
 "power": (lambda x: jnp.power(x, 2.5), pos), "logaddexp": (lambda x: jnp.logaddexp(x, x[::-1]), v), "cbrt": (jnp.cbrt, v),
 "square": (jnp.square, v), "reciprocal": (jnp.reciprocal, pos), "sinc": (jnp.sinc, v), "deg2rad": (jnp.deg2rad, v),
 "heaviside": (lambda x: jnp.heaviside(x, 0.5), v), "nan_to_num": (lambda x: jnp.nan_to_num(jnp.log(x)), v), "clip": (lambda x: jnp.clip(x, -0.5, 0.5), v),
 "isnan": (lambda x: jnp.isnan(jnp.log(x)), v), "isinf": (lambda x: jnp.isinf(1/ (x*0)), v), "signbit": (jnp.signbit, v),
 "copysign": (lambda x: jnp.copysign(x, x[::-1]), v), "nextafter": (lambda x: jnp.nextafter(x, 0.0*x), v), "ldexp": (lambda x: jnp.ldexp(x, 3), v),
 "frexp": (jnp.frexp, v), "modf": (jnp.modf, v*3), "gcd": (lambda x: jnp.gcd(x, 12), iv), "lcm": (lambda x: jnp.lcm(x, 6), iv),
 "bitwise": (lambda x: (x & 5, x | 3, x ^ 9, ~x, x << 2, x >> 1), iv), "popcount": (lax.population_count, iv), "clz": (lax.clz, iv),
 "sum_axis": (lambda x: x.sum(0), A), "mean": (jnp.mean, A), "var": (lambda x: jnp.var(x, axis=1), A), "std": (jnp.std, A),
 "prod": (lambda x: jnp.prod(x, axis=0), A), "max": (lambda x: x.max(1), A), "argmax": (lambda x: jnp.argmax(x, 1), A), "argmin": (lambda x: jnp.argmin(x, 0), A),
 "cumprod": (lambda x: jnp.cumprod(x, 1), A), "cummax": (lambda x: lax.cummax(x, 0), A), "logcumsumexp": (lambda x: lax.cumlogsumexp(x, 1), A),
 "median": (jnp.median, A), "quantile": (lambda x: jnp.quantile(x, 0.3), A), "percentile": (lambda x: jnp.percentile(x, 70, axis=0), A),
 "nanmean": (lambda x: jnp.nanmean(jnp.where(x > 1, jnp.nan, x)), A), "nansum": (lambda x: jnp.nansum(jnp.log(x)), v), "ptp": (jnp.ptp, A),
 "all_any": (lambda x: (jnp.all(x > -3), jnp.any(x > 2)), A), "count_nonzero": (lambda x: jnp.count_nonzero(x > 0), A),
 "sort": (lambda x: jnp.sort(x, 0), A), "argsort": (lambda x: jnp.argsort(x, 1), A), "argsort_stable_int": (lambda x: jnp.argsort(x % 4, stable=True), iv), "lexsort": (lambda x: jnp.lexsort((x, x % 3)), iv),
 "partition": (lambda x: jnp.partition(x, 5), v), "top_k": (lambda x: lax.top_k(x, 4), A), "unique_size": (lambda x: jnp.unique(x % 5, size=6, fill_value=-1), iv),
 "searchsorted": (lambda x: jnp.searchsorted(jnp.sort(x), x[:5]), v), "digitize": (lambda x: jnp.digitize(x, jnp.array([-1., 0., 1.])), v),
 "histogram": (lambda x: jnp.histogram(x, bins=5, range=(-2, 2)), v), "bincount": (lambda x: jnp.bincount(jnp.abs(x) % 7, length=7), iv),
 "where3": (lambda x: jnp.where(x > 0, x, -x), v), "select_n": (lambda x: lax.select_n(x > 0, x, 2 * x), v),
 "transpose": (lambda x: x.T @ x, A), "einsum": (lambda x: jnp.einsum("ij,jk->ik", x, B), A), "einsum_batch": (lambda x: jnp.einsum("bij,bkj->bik", x[None], x[None]), A),
 "tensordot": (lambda x: jnp.tensordot(x, B, 1), A), "outer": (lambda x: jnp.outer(x, x), v), "kron": (lambda x: jnp.kron(x[:2, :2], x[:3, :3]), A),
 "matmul_int": (lambda x: (x.reshape(1, 17) * x[:, None]) @ x, iv), "vdot": (lambda x: jnp.vdot(x, x), v), "cross": (lambda x: jnp.cross(x[:3], x[3:6]), v),
 "trace": (jnp.trace, S), "diag": (lambda x: jnp.diag(x) + jnp.diag(jnp.diag(x)).sum(), S), "tril": (jnp.tril, S), "triu": (lambda x: jnp.triu(x, 1), S),
 "roll": (lambda x: jnp.roll(x, 3, 1), A), "flip": (lambda x: jnp.flip(x), A), "rot90": (jnp.rot90, A), "tile": (lambda x: jnp.tile(x, (2, 3)), A),
 "repeat": (lambda x: jnp.repeat(x, 2, axis=0), A), "pad_reflect": (lambda x: jnp.pad(x, 2, mode="reflect"), A), "pad_edge": (lambda x: jnp.pad(x, ((1, 2), (0, 3)), mode="edge"), A),
 "pad_wrap": (lambda x: jnp.pad(x, 2, mode="wrap"), A), "concat_stack": (lambda x: (jnp.concatenate([x, x], 1), jnp.stack([x, x], 2)), A),
 "split": (lambda x: jnp.split(x, 3), A), "take": (lambda x: jnp.take(x, jnp.array([0, 3, 5]), axis=0), A), "take_along": (lambda x: jnp.take_along_axis(x, jnp.argsort(x, 1), 1), A),
 "index_update": (lambda x: x.at[1:3, ::2].set(7.0), A), "index_add_dup": (lambda x: x.at[jnp.array([0, 0, 2])].add(1.0), v), "index_mul": (lambda x: x.at[jnp.array([1, 1])].multiply(3.0), v),
 "index_min": (lambda x: x.at[jnp.array([1, 1, 4])].min(jnp.array([-5., 2., -9.])), v), "where_size": (lambda x: jnp.where(x > 0, size=17, fill_value=-1)[0], v),
 "nonzero_size": (lambda x: jnp.nonzero(x > 0, size=10, fill_value=-1), v), "argwhere": (lambda x: jnp.argwhere(x > 0, size=8), A),
 "meshgrid": (lambda x: jnp.meshgrid(x[:3], x[:4]), v), "linspace": (lambda x: jnp.linspace(x[0], x[1], 7), v), "arange": (lambda x: jnp.arange(10) * x[0], v),
 "eye_identity": (lambda x: jnp.eye(4, 5, 1) * x[0], v), "convolve": (lambda x: jnp.convolve(x, x[:4]), v), "correlate": (lambda x: jnp.correlate(x, x[:4], mode="same"), v),
 "polyval": (lambda x: jnp.polyval(jnp.array([1., -2., 3.]), x), v), "interp": (lambda x: jnp.interp(x, jnp.array([-1., 0., 2.]), jnp.array([0., 1., 5.])), v),
 "diff": (lambda x: jnp.diff(x, n=2), v), "gradient": (jnp.gradient, v), "trapezoid": (lambda x: jnp.trapezoid(x), v),
 "inv": (jnp.linalg.inv, SPD), "det": (jnp.linalg.det, SPD), "slogdet": (jnp.linalg.slogdet, S), "solve": (lambda x: jnp.linalg.solve(x, B), SPD),
 "pinv": (jnp.linalg.pinv, A), "lstsq": (lambda x: jnp.linalg.lstsq(x, A[:, :2])[0], A), "matrix_rank": (jnp.linalg.matrix_rank, A), "norm": (lambda x: (jnp.linalg.norm(x), jnp.linalg.norm(x, 2), jnp.linalg.norm(x, axis=1)), A),
 "qr": (lambda x: jnp.abs(jnp.linalg.qr(x)[1]), A), "eigvalsh": (jnp.linalg.eigvalsh, SPD), "svd_vals": (lambda x: jnp.linalg.svd(x, compute_uv=False), A),
 "cholesky": (jnp.linalg.cholesky, SPD), "matrix_power": (lambda x: jnp.linalg.matrix_power(x, 3), S), "expm": (lambda x: jsp.linalg.expm(x / 5), S),
 "solve_triangular": (lambda x: jsp.linalg.solve_triangular(jnp.tril(x) + 5 * jnp.eye(5), B), S), "lu_factor": (lambda x: jsp.linalg.lu_factor(x)[0], SPD),
 "eig_vals": (lambda x: jnp.sort_complex(jnp.linalg.eigvals(x)), SPD), "cho_solve": (lambda x: jsp.linalg.cho_solve(jsp.linalg.cho_factor(x), B), SPD),
 "fft": (lambda x: jnp.fft.fft(x), v), "rfft": (lambda x: jnp.fft.rfft(x), v), "irfft": (lambda x: jnp.fft.irfft(jnp.fft.rfft(x), 17), v), "fft2": (lambda x: jnp.fft.fft2(x), A),
 "ifftshift": (lambda x: jnp.fft.ifftshift(jnp.fft.fftshift(x)), A), "complex_ops": (lambda x: (jnp.abs(x), jnp.angle(x), jnp.conj(x) * x, jnp.exp(x), x @ x), C),
 "complex_sqrt_log": (lambda x: (jnp.sqrt(x), jnp.log(x)), C),
 "relu_gelu": (lambda x: (jax.nn.relu(x), jax.nn.gelu(x), jax.nn.gelu(x, approximate=False), jax.nn.silu(x), jax.nn.elu(x), jax.nn.softplus(x), jax.nn.celu(x), jax.nn.selu(x)), v),
 "softmax_logsumexp": (lambda x: (jax.nn.softmax(x, 1), jax.nn.log_softmax(x), jsp.special.logsumexp(x, 0)), A), "one_hot": (lambda x: jax.nn.one_hot(jnp.abs(x) % 5, 5), iv),
 "standardize": (lambda x: jax.nn.standardize(x, axis=1), A), "sigmoid": (lambda x: (jax.nn.sigmoid(x), jax.nn.log_sigmoid(x), jax.nn.hard_tanh(x), jax.nn.sparse_plus(x)), v),
 "special": (lambda x: (jsp.special.erf(x), jsp.special.erfc(x), jsp.special.erfinv(x / 4), jsp.special.gammaln(x), jsp.special.digamma(x), jsp.special.xlogy(x, x), jsp.special.i0e(x), jsp.special.i1e(x)), pos),
 "special2": (lambda x: (jsp.special.betainc(2., 3., x / 4), jsp.special.gammainc(2., x), jsp.special.zeta(x + 1.5, 1.), jsp.special.polygamma(1, x), jsp.special.ndtri(x / 4), jsp.special.expit(x), jsp.special.entr(x)), pos),
 "lgamma_igamma": (lambda x: (lax.lgamma(x), lax.igamma(x, x), lax.igammac(x, 2 * x), lax.random_gamma_grad(x, x)), pos),
 "bessel": (lambda x: (lax.bessel_i0e(x), lax.bessel_i1e(x)), v),
 "conv_general": (lambda x: lax.conv_general_dilated(x, ker, (2, 1), "SAME", rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")), img),
 "conv_transpose": (lambda x: lax.conv_transpose(x, ker, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), img),
 "conv_grouped": (lambda x: lax.conv_general_dilated(x, ker[:, :, :1, :3], (1, 1), "VALID", feature_group_count=3, dimension_numbers=("NHWC", "HWIO", "NHWC")), img),
 "avg_pool": (lambda x: lax.reduce_window(x, 0., lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") / 9, img), "max_pool": (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), img),
 "max_pool_grad": (jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME").sum()), img),
 "resize": (lambda x: jax.image.resize(x, (2, 5, 13, 3), "bilinear"), img), "resize_cubic": (lambda x: jax.image.resize(x, (2, 4, 4, 3), "cubic"), img),
 "random": (lambda k: (jax.random.normal(k, (5,)), jax.random.uniform(k, (3,)), jax.random.randint(k, (4,), 0, 10), jax.random.bernoulli(k, 0.3, (6,)), jax.random.permutation(k, 8), jax.random.categorical(k, jnp.zeros((2, 5))), jax.random.truncated_normal(k, -1., 1., (4,)), jax.random.gamma(k, 2., (3,)), jax.random.beta(k, 2., 3., (3,)), jax.random.choice(k, 10, (3,), replace=False), jax.random.key_data(jax.random.split(k, 3))), key),
 "random_bits_fold": (lambda k: (jax.random.bits(jax.random.fold_in(k, 7), (4,)), jax.random.key_data(jax.random.split(k))), key),
 "cast_chain": (lambda x: (x.astype(jnp.bfloat16).astype(jnp.float32), x.astype(jnp.float16), x.astype(jnp.int8), (x * 100).astype(jnp.uint8), x.astype(jnp.bool_)), v),
 "bitcast": (lambda x: (lax.bitcast_convert_type(x, jnp.int32), lax.bitcast_convert_type(x, jnp.uint8)), v),
 "reduce_precision": (lambda x: lax.reduce_precision(x, 5, 10), v), "bf16_multiply": (lambda x: x.astype(jnp.bfloat16) * 3, v),
 "int_div_neg": (lambda x: (lax.div(x, 3), lax.rem(x, 3), x // -3, x % -3), iv), "shift_oob": (lambda x: (x << 33, lax.shift_right_logical(x, 40), lax.shift_right_arithmetic(x, 35)), iv),
 "uint_ops": (lambda x: (x.astype(jnp.uint32) // 7, x.astype(jnp.uint32) > 5, x.astype(jnp.uint8) * 3), iv),
 "min_max_nan": (lambda x: (jnp.maximum(jnp.log(x), 0.), jnp.minimum(jnp.log(x), 0.), jnp.fmax(jnp.log(x), 0.), jnp.nanmax(jnp.log(x)), jnp.max(jnp.log(x))), v),
 "vmap_grad": (lambda x: jax.vmap(jax.grad(lambda y: jnp.sum(jnp.sin(y) ** 2)))(x), A), "hessian": (lambda x: jax.hessian(lambda y: jnp.sum(y ** 3 * y[0]))(x), v[:4]),
 "jvp": (lambda x: jax.jvp(jnp.tanh, (x,), (jnp.ones_like(x),)), v), "checkpoint": (jax.grad(lambda x: jax.checkpoint(lambda y: jnp.sin(y).sum() ** 2)(x)), v),
 "custom_jvp": (jax.grad(lambda x: jax.nn.logsumexp(x) + jax.nn.relu(x).sum()), v), "associative_scan": (lambda x: lax.associative_scan(jnp.add, x), v),
 "map": (lambda x: lax.map(lambda r: r @ r, x), A), "switch": (lambda x: [lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x) for i in (0, 2, 5)], v),
 "while_dynamic": (lambda x: lax.while_loop(lambda c: c[1] < 100., lambda c: (c[0] + 1, c[1] * 1.5 + 1.), (0, jnp.abs(x[0]))), v),
 "fori_unrolled": (lambda x: lax.fori_loop(0, 5, lambda i, c: c * 0.5 + i, x, unroll=True), v),
 "dynamic_slice": (lambda x: (lax.dynamic_slice(x, (jnp.argmax(x[:, 0]), 1), (2, 3)), lax.dynamic_update_slice(x, jnp.ones((2, 2)), (4, 4))), A),
 "reductions_int": (lambda x: (x.sum(), x.prod(), x.max(), jnp.cumsum(x)), iv), "sum_bool": (lambda x: (x > 0).sum(), v),
 "f16_math": (lambda x: (jnp.exp(x.astype(jnp.float16)), jnp.tanh(x.astype(jnp.bfloat16)), x.astype(jnp.float16).sum(), x.astype(jnp.bfloat16) @ x.astype(jnp.bfloat16)), v),
 "iota_argsort_2d": (lambda x: jnp.argsort(-x, axis=0)[:2], A), "clamp": (lambda x: lax.clamp(-0.3, x, 0.3), v),
 "expand_squeeze": (lambda x: jnp.squeeze(jnp.expand_dims(x, (0, 2)), 0), A), "broadcast_to": (lambda x: jnp.broadcast_to(x[:, None], (17, 3)), v),
 "polyfit": (lambda x: jnp.polyfit(jnp.arange(17.), x, 2), v), "corrcoef": (lambda x: jnp.corrcoef(x), A), "cov": (lambda x: jnp.cov(x), A),
 "isclose": (lambda x: jnp.isclose(x, x + 1e-7), v), "allclose_where": (lambda x: jnp.where(jnp.allclose(x, x), 1., 0.), v),
 "cumsum_reverse": (lambda x: lax.cumsum(x, 0, reverse=True), A), "sort_multi": (lambda x: lax.sort((x % 3, x), num_keys=1), iv),
 "erf_inv": (lambda x: lax.erf_inv(x / 4), v), "atan_big": (lambda x: jnp.arctan(x * 1e6), v), "tan": (jnp.tan, v), "logistic": (lax.logistic, v * 30),
 "rsqrt": (lax.rsqrt, pos), "exp_big": (lambda x: jnp.exp(x * 50), v), "log_neg": (jnp.log, v), "sqrt_neg": (jnp.sqrt, v), "pow_neg": (lambda x: x ** 0.5, v), "div_zero": (lambda x: x / (x * 0), v),
 "int_div_zero": (lambda x: (x // (x * 0), x % (x * 0)), iv), "int_overflow": (lambda x: (x * 2**30, jnp.abs(jnp.int32(-2**31) + x * 0)), iv), "float_to_int_sat": (lambda x: (x * 1e10).astype(jnp.int32), v),
 "nan_to_int": (lambda x: jnp.log(x).astype(jnp.int32), v), "uint_to_float": (lambda x: (x.astype(jnp.uint32)).astype(jnp.float32), iv),
}

'''

# Gradients (through sort, scatter, convolutions, pooling, linear algebra,
# scan, loops), larger and batched inputs, vmap, low precision; run in f32
# and again with jax_enable_x64 (f64, i64).
MODEL_PROGRAM = r'''
TOLERANCE = 5e-3
import json, sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import jax.scipy as jsp
jax.config.update("jax_enable_x64", X64)  # X64 is set by the test
f = np.float64 if X64 else np.float32
r = np.random.default_rng(1)
M = r.standard_normal((64, 48)).astype(f)
W = r.standard_normal((48, 32)).astype(f)
big = r.standard_normal((300, 257)).astype(f)
vec = r.standard_normal(1000).astype(f)
ivec = r.integers(-1000, 1000, 1000).astype(np.int64 if X64 else np.int32)
bat = r.standard_normal((8, 6, 6)).astype(f); bspd = bat @ np.swapaxes(bat, 1, 2) + 6 * np.eye(6, dtype=f)
img = r.standard_normal((4, 16, 16, 8)).astype(f)
ker = r.standard_normal((3, 3, 8, 16)).astype(f) * 0.1
seq = r.standard_normal((10, 4, 16)).astype(f)
g = lambda fn: jax.grad(lambda x: jnp.sum(fn(x) ** 2))
cases = {
 "grad_sort": (g(lambda x: jnp.sort(x, 1)), M), "grad_cumsum": (g(lambda x: jnp.cumsum(x, 0)), M), "grad_cumprod": (g(lambda x: jnp.cumprod(x[:, :5] * 0.5 + 1, 1)), M),
 "grad_take": (g(lambda x: x[jnp.array([3, 3, 7, 0])]), M), "grad_at_set": (g(lambda x: x.at[2:5].set(0.) * x), M), "grad_max": (g(lambda x: x.max(1)), M),
 "grad_softmax": (g(lambda x: jax.nn.softmax(x, 1)), M), "grad_logsumexp": (g(lambda x: jsp.special.logsumexp(x, 1)), M), "grad_norm": (g(lambda x: jnp.linalg.norm(x, axis=1)), M),
 "grad_conv": (g(lambda x: lax.conv_general_dilated(x, ker, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))), img),
 "grad_conv_w": (jax.grad(lambda k: jnp.sum(lax.conv_general_dilated(img, k, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)), ker),
 "grad_pool": (g(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")), img),
 "grad_avgpool": (g(lambda x: lax.reduce_window(x, 0., lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")), img),
 "grad_inv": (g(lambda x: jnp.linalg.inv(x)), bspd), "grad_cholesky": (g(jnp.linalg.cholesky), bspd), "grad_det": (jax.grad(lambda x: jnp.sum(jnp.linalg.det(x))), bspd),
 "grad_eigh": (g(lambda x: jnp.linalg.eigh(x)[0]), bspd), "grad_svd": (g(lambda x: jnp.linalg.svd(x, compute_uv=False)), bat), "grad_solve": (g(lambda x: jnp.linalg.solve(x, bat)), bspd),
 "grad_qr": (g(lambda x: jnp.linalg.qr(x)[1]), bat),
 "grad_scan_rnn": (jax.grad(lambda w: jnp.sum(lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h), jnp.zeros((4, 16), f), seq)[0])), np.eye(16, dtype=f) * 0.5),
 "grad_while_fori": (g(lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * 1.1, x)), M), "grad_cond": (g(lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)), M),
 "grad_gelu_layernorm": (g(lambda x: jax.nn.gelu((x - x.mean(1, keepdims=True)) / jnp.sqrt(x.var(1, keepdims=True) + 1e-5))), M),
 "grad_where_sqrt": (g(lambda x: jnp.where(x > 0, jnp.sqrt(jnp.abs(x)), 0.)), M), "grad_dot": (g(lambda x: x @ W), M), "grad_einsum": (g(lambda x: jnp.einsum("bij,bjk->bik", x, x)), bat),
 "grad_fft": (g(lambda x: jnp.abs(jnp.fft.rfft(x))), vec), "grad_remat_scan": (g(lambda x: jax.checkpoint(lambda y: jnp.tanh(y @ W))(x)), M),
 "big_sum": (lambda x: (x.sum(), x.sum(0), x.sum(1), x.mean(), x.var(0)), big), "big_max_argmax": (lambda x: (x.max(0), jnp.argmax(x, 1), jnp.argmin(x)), big),
 "big_softmax": (lambda x: jax.nn.softmax(x, 1), big), "big_dot": (lambda x: x @ x.T, big), "big_transpose": (lambda x: x.T + 1, big), "big_sort": (lambda x: jnp.sort(x, 0), big),
 "big_cumsum": (lambda x: jnp.cumsum(x, 1), big), "big_topk": (lambda x: lax.top_k(x, 5), big), "big_argsort": (lambda x: jnp.argsort(x, 1), big),
 "vec_sort_int": (jnp.sort, ivec), "vec_unique": (lambda x: jnp.unique(x % 37, size=40), ivec), "vec_bincount": (lambda x: jnp.bincount(jnp.abs(x) % 100, length=100), ivec),
 "vec_cumsum_int": (jnp.cumsum, ivec), "vec_prod_int": (lambda x: jnp.prod(x[:10] % 5 + 1), ivec), "vec_histogram": (lambda x: jnp.histogram(x, 20), vec),
 "vec_median": (jnp.median, vec), "vec_percentile": (lambda x: jnp.percentile(x, jnp.array([5., 50., 95.])), vec),
 "batched_linalg": (lambda x: (jnp.linalg.inv(x), jnp.linalg.det(x), jnp.linalg.slogdet(x)[1], jnp.linalg.eigvalsh(x), jnp.linalg.cholesky(x), jnp.linalg.solve(x, x[..., :1])), bspd),
 "batched_svd_qr": (lambda x: (jnp.linalg.svd(x, compute_uv=False), jnp.abs(jnp.linalg.qr(x)[1])), bat), "batched_lu": (lambda x: lax.linalg.lu(x)[0], bat),
 "vmap_dot": (jax.vmap(lambda a: a @ a.T), bat), "vmap_sort": (jax.vmap(jnp.sort), M), "vmap_cond": (jax.vmap(lambda a: lax.cond(a[0] > 0, jnp.sin, jnp.cos, a)), M),
 "conv_nchw": (lambda x: lax.conv(jnp.transpose(x, (0, 3, 1, 2)), jnp.transpose(ker, (3, 2, 0, 1)), (1, 1), "SAME"), img),
 "conv_depthwise": (lambda x: lax.conv_general_dilated(x, ker[:, :, :1, :8], (1, 1), "SAME", feature_group_count=8, dimension_numbers=("NHWC", "HWIO", "NHWC")), img),
 "conv1d": (lambda x: lax.conv_general_dilated(x, jnp.ones((3, 16, 4), x.dtype), (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")), seq),
 "attention": (lambda x: jax.nn.dot_product_attention(x[None], x[None], x[None], is_causal=True), seq),
 "int8_matmul": (lambda x: jnp.matmul((x[:16, :16] * 10).astype(jnp.int8), (x[:16, :16] * 10).astype(jnp.int8), preferred_element_type=jnp.int32), M),
 "f16_matmul": (lambda x: (x.astype(jnp.float16) @ W.astype(jnp.float16)).astype(jnp.float32), M), "bf16_matmul": (lambda x: (x.astype(jnp.bfloat16) @ W.astype(jnp.bfloat16)).astype(jnp.float32), M),
 "f16_reduce": (lambda x: (x.astype(jnp.float16).sum(0), x.astype(jnp.bfloat16).max(1), x.astype(jnp.float16).mean()), big),
 "rng_many": (lambda x: (jax.random.normal(jax.random.key(3), (1000,)).mean(), jax.random.uniform(jax.random.key(4), (50, 50)), jax.random.randint(jax.random.key(5), (100,), 0, 1000)), M),
 "dynamic_update_loop": (lambda x: lax.fori_loop(0, 10, lambda i, c: lax.dynamic_update_slice(c, lax.dynamic_slice(c, (i, 0), (1, 48)) * 2, (i + 1, 0)), x), M),
 "scatter_2d": (lambda x: x.at[jnp.array([1, 5, 1]), jnp.array([2, 3, 2])].add(jnp.array([1., 2., 3.], x.dtype)), M),
 "gather_2d": (lambda x: x[jnp.array([[1, 2], [3, 60]]), jnp.array([[0], [47]])], M), "gather_oob": (lambda x: x.at[jnp.array([100, -100, 5])].get(mode="clip"), vec),
 "gather_fill": (lambda x: x.at[jnp.array([100, -1, 5])].get(mode="fill", fill_value=-7.), vec), "scatter_drop": (lambda x: x.at[jnp.array([2000, 3])].set(9., mode="drop"), vec),
 "segment_sum": (lambda x: jax.ops.segment_sum(x, jnp.abs(ivec) % 10, 10), vec), "segment_max": (lambda x: jax.ops.segment_max(x, jnp.abs(ivec) % 10, 10), vec),
 "pad_negative": (lambda x: lax.pad(x, 0., ((-2, 3, 1), (1, -4, 0))), M), "rev_slice_stride": (lambda x: x[::-3, 5:1:-2], M),
 "concat_many": (lambda x: jnp.concatenate([x[i:i+2] for i in range(0, 60, 7)], 0), M), "reshape_chain": (lambda x: x.reshape(8, 8, 48).transpose(2, 0, 1).reshape(-1, 16).sum(1), M),
 "expm_batched": (lambda x: jsp.linalg.expm(x * 0.1), bat), "solve_triangular_batched": (lambda x: jsp.linalg.solve_triangular(jnp.tril(x) + 6 * jnp.eye(6), x, lower=True), bat),
}
'''

# Edges: special values through math, casts, sorts and reductions,
# failing factorizations, nested scans, custom_vjp, variadic reduces, odd
# windows and paddings, complex gradients.
EDGES_PROGRAM = r'''
TOLERANCE = 2e-3
import json, sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import jax.scipy as jsp
r = np.random.default_rng(2)
f = np.float32
M = r.standard_normal((12, 10)).astype(f)
T3 = r.standard_normal((4, 5, 6)).astype(f)
img = r.standard_normal((2, 11, 11, 3)).astype(f)
ker = (r.standard_normal((3, 3, 3, 5)) * 0.3).astype(f)
seq = r.standard_normal((7, 3, 5)).astype(f)
Cm = (r.standard_normal((5, 5)) + 1j * r.standard_normal((5, 5))).astype(np.complex64)
@jax.custom_vjp
def clip_grad(x): return x
clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.1, 0.1),))
def two_level_scan(x):
    def outer(c, row):
        inner = lax.scan(lambda a, e: (a * 0.9 + e, a), c, row)
        return inner[0], inner[1].sum()
    return lax.scan(outer, jnp.zeros(()), x)
cases = {
 "scan_many_carries": (lambda x: lax.scan(lambda c, e: ((c[0] + e, c[1] * 0.5 + e.sum(), c[2] + 1), c[0].sum()), (jnp.zeros(10), 0., 0), x), M),
 "nested_scan": (two_level_scan, M), "grad_nested_scan": (jax.grad(lambda x: two_level_scan(x)[1].sum()), M),
 "while_complex_cond": (lambda x: lax.while_loop(lambda c: (c[0] < 20) & (jnp.abs(c[1]).sum() < 1e4), lambda c: (c[0] + 1, c[1] * 1.7 - 0.3), (0, x)), M),
 "argmax_variadic": (lambda x: lax.reduce((x, lax.broadcasted_iota(jnp.int32, x.shape, 1)), (-jnp.inf, 0), lambda a, b: (jnp.maximum(a[0], b[0]), jnp.where(a[0] >= b[0], a[1], b[1])), (1,)), M),
 "custom_vjp": (jax.grad(lambda x: jnp.sum(clip_grad(x) ** 3)), M), "sort_two_keys": (lambda x: lax.sort((jnp.round(x[:, 0]), x[:, 1], x[:, 2]), num_keys=2), M),
 "einsum_three": (lambda x: jnp.einsum("ij,jk,ki->", x[:10], x[:10].T, x[:10, :10]), M), "dot_batch_middle": (lambda x: lax.dot_general(x, x, (((2,), (2,)), ((1,), (1,)))), T3),
 "complex_grad": (jax.grad(lambda x: jnp.abs(jnp.sum((x + 1j * x) ** 2 * jnp.exp(1j * x)))), M), "complex_matmul_inv": (lambda x: (x @ jnp.conj(x).T, jnp.linalg.inv(x + 3 * jnp.eye(5))), Cm),
 "eig_nonsym": (lambda x: jnp.sort(jnp.abs(jnp.linalg.eigvals(x[:5, :5]))), M), "fftn_3d": (lambda x: jnp.fft.fftn(x), T3), "ifftn_roundtrip": (lambda x: jnp.fft.irfftn(jnp.fft.rfftn(x), x.shape), T3),
 "conv_grad_dilated": (jax.grad(lambda x: jnp.sum(lax.conv_general_dilated(x, ker, (2, 2), ((1, 2), (2, 1)), lhs_dilation=(1, 1), rhs_dilation=(2, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)), img),
 "conv_transpose_grad": (jax.grad(lambda x: jnp.sum(lax.conv_transpose(x, ker, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)), img),
 "conv_lhs_dilation": (lambda x: lax.conv_general_dilated(x, ker, (1, 1), ((2, 2), (2, 2)), lhs_dilation=(2, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")), img),
 "attention_mask": (lambda x: jax.nn.dot_product_attention(x, x, x, mask=jnp.tril(jnp.ones((7, 7), bool))), seq),
 "reduce_window_strided_pad": (lambda x: lax.reduce_window(x, 0., lax.add, (1, 3, 2, 1), (1, 2, 3, 1), ((0, 0), (1, 2), (2, 0), (0, 0)), base_dilation=(1, 2, 1, 1), window_dilation=(1, 1, 2, 1)), img),
 "select_and_scatter_add": (jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0))) ** 2)), img),
 "cumsum_all_axes": (lambda x: (jnp.cumsum(x, 0), jnp.cumsum(x, 1), jnp.cumsum(x, 2), lax.cummin(x, 1, reverse=True)), T3),
 "gather_batch_dims": (lambda x: jnp.take_along_axis(x, jnp.argsort(x, 2)[:, :, :3], 2), T3), "scatter_nd": (lambda x: x.at[jnp.array([0, 3, 0]), :, jnp.array([1, 1, 5])].add(1.0), T3),
 "dynamic_slice_oob": (lambda x: (lax.dynamic_slice(x, (10, -3), (4, 4)), lax.dynamic_update_slice(x, jnp.ones((3, 3)), (11, 9))), M),
 "rng_bit_generator": (lambda x: lax.rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (4, 5), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)[1], M),
 "rng_philox": (lambda x: lax.rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (6,), jnp.uint64 if jax.config.jax_enable_x64 else jnp.uint32, algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1], M),
 "reduce_precision_bf16": (lambda x: lax.reduce_precision(x * 1e3, 8, 7), M), "integer_pow": (lambda x: (lax.integer_pow(x, 5), lax.integer_pow(x, -2)), M),
 "expm1_log1p_small": (lambda x: (jnp.expm1(x * 1e-6), jnp.log1p(x * 1e-6)), M), "logistic_extreme": (lambda x: jax.nn.sigmoid(x * 100), M),
 "erfc_tail": (lambda x: jsp.special.erfc(x * 5), M), "lgamma_neg": (lambda x: lax.lgamma(x * 3), M), "digamma_neg": (lambda x: lax.digamma(x * 3 + 0.01), M),
 "atan2_zeros": (lambda x: jnp.arctan2(jnp.array([0., -0., 0., -0.]), jnp.array([0., 0., -0., -0.])) + x[0, 0] * 0, M), "pow_special": (lambda x: jnp.power(jnp.array([0., -0., -2., jnp.inf, -jnp.inf, jnp.nan, 1.]), jnp.array([0., -1., 0.5, -1., 3., 0., jnp.nan])) + x[0, 0] * 0, M),
 "round_half": (lambda x: (jnp.round(jnp.array([0.5, 1.5, 2.5, -0.5, -1.5])), lax.round(jnp.array([0.5, 1.5, -2.5]), lax.RoundingMethod.AWAY_FROM_ZERO), x), M),
 "float_mod_neg": (lambda x: (jnp.fmod(x * 7, -2.), jnp.remainder(x * 7, -2.), jnp.remainder(-x * 7, 2.)), M),
 "cast_special": (lambda x: (jnp.array([jnp.nan, jnp.inf, -jnp.inf, 3e9, -3e9, 2.7]).astype(jnp.int32), jnp.array([jnp.nan, 300., -1., 255.5]).astype(jnp.uint8), jnp.array([1e5, -1e5, 65519., jnp.nan]).astype(jnp.float16), x), M),
 "int_minmax_abs": (lambda x: (jnp.abs(jnp.array([-2**31], jnp.int32)), jnp.array([-128], jnp.int8) // -1, jnp.array([7], jnp.int8) * 100), M),
 "bool_arith": (lambda x: ((x > 0) & (x < 1), (x > 0) ^ (x < 0.5), jnp.sum(x > 0, axis=0), jnp.cumsum(x > 0, axis=1)), M),
 "clz_popcnt_u": (lambda x: (lax.clz(jnp.array([0, 1, 255, 2**31], jnp.uint32)), lax.population_count(jnp.array([-1, 0, 5], jnp.int8))), M),
 "shift_int8": (lambda x: (jnp.array([-128, 64, 1], jnp.int8) >> 3, jnp.array([-128, 64, 1], jnp.int8) << 1, lax.shift_right_logical(jnp.array([-128, 64], jnp.int8), jnp.array([1, 9], jnp.int8))), M),
 "pad_interior_neg": (lambda x: lax.pad(x, 1.5, ((1, -2, 2), (-1, 3, 1))), M), "rev_multi": (lambda x: lax.rev(x, (0, 2)), T3),
 "transpose_3d": (lambda x: (x.transpose(2, 0, 1) * 2).transpose(1, 2, 0) + x, T3), "broadcast_reduce": (lambda x: (x[:, None, :] * x[None, :, :]).sum((0, 2)), M),
 "sort_nan_inf": (lambda x: (jnp.sort(jnp.array([jnp.nan, 1., -jnp.inf, -0., 0., jnp.inf, -jnp.nan, -1.])), jnp.argsort(jnp.array([jnp.nan, 1., -jnp.inf, 0., jnp.inf]))), M),
 "max_nan_prop": (lambda x: (jnp.max(jnp.array([1., jnp.nan, 3.])), jnp.argmax(jnp.array([1., jnp.nan, 3.])), jnp.min(jnp.array([jnp.nan, -jnp.inf]))), M),
 "topk_ties": (lambda x: lax.top_k(jnp.array([1., 3., 3., 2., 3.]), 3), M), "cholesky_fail": (lambda x: jnp.linalg.cholesky(-jnp.eye(3)), M),
 "solve_singular": (lambda x: jnp.linalg.solve(jnp.zeros((3, 3)), jnp.ones(3)), M), "det_singular": (lambda x: jnp.linalg.det(jnp.ones((4, 4))), M),
 "qr_wide": (lambda x: jnp.abs(jnp.linalg.qr(x.T)[1]), M), "svd_full": (lambda x: jnp.abs(jnp.linalg.svd(x)[0][:, :3]), M), "eigh_upper": (lambda x: jnp.linalg.eigh(x.T @ x, UPLO="U")[0], M),
 "triangular_left_trans": (lambda x: lax.linalg.triangular_solve(jnp.tril(x[:10]) + 4 * jnp.eye(10), x[:3], left_side=False, lower=True, transpose_a=True), M),
}
'''

CONFIGURATIONS = {
    "api": API_PROGRAM + HARNESS,
    "model_f32": "X64 = False\n" + MODEL_PROGRAM + HARNESS,
    "model_x64": "X64 = True\n" + MODEL_PROGRAM + HARNESS,
    "edges": EDGES_PROGRAM + HARNESS,
}


def case_names(program):
    return [a or b for a, b in re.findall(r'^ "([a-z0-9_]+)": \(|, "([a-z0-9_]+)": \(', program, flags=re.M)]


CASES = [(configuration, name) for configuration, program in CONFIGURATIONS.items() for name in case_names(program)]
_results = {}


def results(configuration):
    if configuration not in _results:
        _results[configuration] = run_reporting_checks(CONFIGURATIONS[configuration], plugin_environment())
    return _results[configuration]


def test_every_case_is_collected():
    for configuration, program in CONFIGURATIONS.items():
        names = case_names(program)
        assert len(names) == len(set(names)) > 50, (configuration, len(names))


@pytest.mark.parametrize("configuration,name", CASES)
def test_jax_api_matches_xla_cpu(configuration, name):
    got = results(configuration)
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
