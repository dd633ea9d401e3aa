"""kiln.jit against jax.jit on the programs models are made of.

Each case runs one JAX function through kiln.jit (lowered by JAX, compiled and
run by kiln) and through jax.jit, on the same inputs, and compares every
result leaf: integers, booleans and PRNG keys exactly, floats within the
case's tolerance. Every case runs on the reference interpreter and on the cpu
back end.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln

@dataclass
class Case:
    name: str
    fn: Callable
    make_args: Callable[[np.random.Generator], tuple]
    static_argnums: tuple = ()
    rtol: float = 1e-5
    atol: float = 1e-5
    kwargs: dict = field(default_factory=dict)


def normal(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# -- model pieces ---------------------------------------------------------------

def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def mlp_params(rng, sizes):
    return [(normal(rng, m, n) / np.float32(np.sqrt(m)), normal(rng, n) * np.float32(0.1))
            for m, n in zip(sizes[:-1], sizes[1:])]


def cross_entropy(logits, labels):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))


def vocab_loss_grad(logits, labels):
    """bench/workloads.py's cross-entropy over a vocabulary with its gradient: rows of 32000 logits are one row
    kernel computing exp once per element (docs/fusion.md, row fusion), rows of 70000 exceed the row budget. rtol
    3e-4: the interpreter sums a row in order in f32 (7.5e-5 and 1.1e-4 from JAX's gradients)."""
    def loss(z):
        picked = jnp.take_along_axis(z, labels[:, None], axis=-1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(z, axis=-1) - picked)
    return jax.value_and_grad(loss)(logits)


def mlp_train_step(params, x, labels, learning_rate):
    loss, grads = jax.value_and_grad(lambda p: cross_entropy(mlp(p, x), labels))(params)
    return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads), loss


def momentum_train_step(params, velocity, x, labels):
    grads = jax.grad(lambda p: cross_entropy(mlp(p, x), labels))(params)
    velocity = jax.tree_util.tree_map(lambda v, g: 0.9 * v + g, velocity, grads)
    return jax.tree_util.tree_map(lambda p, v: p - 0.05 * v, params, velocity), velocity


def attention(q, k, v, mask):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
    scores = jnp.where(mask, scores, -1e9)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


def layernorm(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


def conv(x, w, strides, padding):
    return lax.conv_general_dilated(x, w, window_strides=strides, padding=padding,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv_grads(x, w, dy, strides, dilation, groups):
    """A convolution and its vjp: from 1M multiply-adds each splits into tiles on kiln's threads (onednn_conv.h)."""
    def f(x, w):
        return lax.conv_general_dilated(x, w, window_strides=strides, padding="SAME", rhs_dilation=dilation,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=groups)
    y, vjp = jax.vjp(f, x, w)
    return (y,) + vjp(dy)


def cnn_loss(params, x, labels):
    h = jax.nn.relu(conv(x, params["conv"], (2, 2), "SAME"))
    h = h.reshape(h.shape[0], -1)
    return cross_entropy(h @ params["dense"], labels)


def fori_power(a, v):
    def body(_, v):
        v = a @ v
        return v / jnp.linalg.norm(v)
    return lax.fori_loop(0, 20, body, v)


def while_newton_sqrt(x):
    def cond(state):
        i, y = state
        return (i < 50) & (jnp.max(jnp.abs(y * y - x)) > 1e-6)

    def body(state):
        i, y = state
        return i + 1, 0.5 * (y + x / y)
    return lax.while_loop(cond, body, (0, x))


def scan_rnn(w, h0, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()
    return lax.scan(step, h0, xs)


def scan_rnn_grad(w, h0, xs):
    return jax.grad(lambda w: scan_rnn(w, h0, xs)[1].sum())(w)


def scan_training_loop(params, xs, labels):
    """Several SGD steps inside one program: lax.scan over minibatches."""
    def step(params, batch):
        params, loss = mlp_train_step(params, *batch, 0.1)
        return params, loss
    return lax.scan(step, params, (xs, labels))


def cond_and_switch(x, index):
    y = lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: -v, x)
    return y, lax.switch(index, [jnp.sin, jnp.cos, jnp.tanh], x)


def random_draws(key):
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    return {
        "normal": jax.random.normal(k1, (64,)),
        "uniform": jax.random.uniform(k2, (8, 8), minval=-2.0, maxval=3.0),
        "bernoulli": jax.random.bernoulli(k3, 0.3, (32,)),
        "randint": jax.random.randint(k4, (16,), 0, 10),
        "permutation": jax.random.permutation(k5, 12),
        "next_key": jax.random.split(key)[0],
    }


def dropout(key, x):
    keep = jax.random.bernoulli(key, 0.8, x.shape)
    return jnp.where(keep, x / 0.8, 0.0)


def integer_ops(a, b):
    b = jnp.where(b == 0, 1, b)
    return (a + b, a * b, a // b, a % b, jnp.left_shift(a, 3), jnp.right_shift(a, 2),
            a & b, a | b, a ^ b, ~a, jnp.maximum(a, b), jnp.abs(a), (a < b), a.sum(), a.max())


def bool_ops(p, q, x):
    return (p & q, p | q, p ^ q, ~p, jnp.where(p, x, -x), jnp.any(p), jnp.all(q),
            jnp.count_nonzero(p), p.astype(jnp.int32) + q)


def gathers(x, idx, rows, cols):
    return (x[idx], x[:, idx], x[rows, cols], x[idx[:3], 2:5],
            jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), x[1:, ::2])


def scatters(x, idx, updates):
    return (x.at[idx].add(updates), x.at[idx].set(updates), x.at[idx].max(updates),
            x.at[2, 1:4].multiply(3.0), jnp.zeros(10).at[jnp.array([1, 1, 3])].add(1.0))


def segment_sums(x, ids):
    # Scatters of whole rows past the emitted-kernel size: the cpu routine,
    # runs of equal sorted ids folded in registers (64 columns and a remainder).
    return (jax.ops.segment_sum(x, ids, num_segments=40), jax.ops.segment_max(x, ids, num_segments=40),
            jax.ops.segment_sum(x[::-1], ids, num_segments=40))


def embedding_grad(table, ids):
    return jax.grad(lambda t: (t[ids] ** 2).sum())(table)


def sort_and_top_k(x):
    values, indices = lax.top_k(x, 4)
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), values, indices, jnp.sort(x.ravel())[::-1]


def cumulative(x):
    return jnp.cumsum(x, axis=0), jnp.cumsum(x, axis=1), jnp.cumprod(x[:, :4], axis=1), lax.cummax(x, axis=1)


# -- the zoo ------------------------------------------------------------------

def special_functions(x):
    """jax.scipy.special's functions that JAX exports as chlo ops, and a gradient through them."""
    from jax.scipy import special
    n = jnp.arange(x.shape[0], dtype=jnp.int32) % 3
    return (special.digamma(x), special.digamma(-x), special.polygamma(n, x), special.zeta(x + 1.5, x),
            special.i1e(x - 1.0), jax.grad(lambda v: jnp.sum(special.gammaln(v)))(x))


def linalg_solves(a, b):
    """LU (solve, inv, det), Cholesky, triangular solves and QR: JAX's CPU lowering calls LAPACK for each."""
    spd = a @ jnp.swapaxes(a, -1, -2) + 6.0 * jnp.eye(a.shape[-1])
    q, r = jnp.linalg.qr(b)
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), jnp.linalg.cholesky(spd),
            jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(spd), b), q, r)


def linalg_spectral(a, b):
    """eigh and svd, through what does not depend on the vectors' signs: values, reconstructions, projectors."""
    s = (a + jnp.swapaxes(a, -1, -2)) / 2
    w, v = jnp.linalg.eigh(s)
    u, sv, vt = jnp.linalg.svd(b, full_matrices=False)
    return (w, (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2), v @ jnp.swapaxes(v, -1, -2), sv, (u * sv) @ vt,
            u @ u.T, jnp.linalg.pinv(b), jnp.linalg.svd(b, compute_uv=False))


CASES = [
    Case("mlp_forward", mlp, lambda r: (mlp_params(r, [32, 64, 64, 10]), normal(r, 16, 32))),
    Case("mlp_train_step", mlp_train_step,
         lambda r: (mlp_params(r, [32, 64, 10]), normal(r, 16, 32), r.integers(0, 10, 16).astype(np.int32), 0.1),
         rtol=1e-4, atol=1e-5),
    Case("mlp_momentum_step", momentum_train_step,
         lambda r: (mlp_params(r, [8, 16, 3]), [(np.zeros((8, 16), np.float32), np.zeros(16, np.float32)),
                                                 (np.zeros((16, 3), np.float32), np.zeros(3, np.float32))],
                    normal(r, 4, 8), np.array([0, 1, 2, 1], np.int32)),
         rtol=1e-4, atol=1e-5),
    Case("attention", attention,
         lambda r: (normal(r, 2, 4, 8, 16), normal(r, 2, 4, 8, 16), normal(r, 2, 4, 8, 16),
                    np.tril(np.ones((8, 8), bool))), rtol=1e-4, atol=1e-5),
    Case("layernorm", layernorm, lambda r: (normal(r, 6, 32), normal(r, 32), normal(r, 32)), rtol=1e-4, atol=1e-5),
    Case("softmax", lambda x: (jax.nn.softmax(x, axis=-1), jax.nn.log_softmax(x, axis=0),
                               jax.scipy.special.logsumexp(x)), lambda r: (normal(r, 8, 33) * 4,)),
    Case("vocab_loss_grad", vocab_loss_grad,
         lambda r: (normal(r, 4, 32000) * 4, r.integers(0, 32000, 4).astype(np.int32)), rtol=3e-4, atol=1e-7),
    Case("vocab_loss_grad_long_rows", vocab_loss_grad,
         lambda r: (normal(r, 2, 70000) * 4, r.integers(0, 70000, 2).astype(np.int32)), rtol=3e-4, atol=1e-7),
    Case("conv_same_stride2", conv, lambda r: (normal(r, 2, 9, 9, 3), normal(r, 3, 3, 3, 4), (2, 2), "SAME"),
         static_argnums=(2, 3), rtol=1e-4, atol=1e-4),
    Case("conv_explicit_padding", conv,
         lambda r: (normal(r, 1, 7, 8, 2), normal(r, 2, 3, 2, 5), (1, 2), ((1, 2), (0, 1))),
         static_argnums=(2, 3), rtol=1e-4, atol=1e-4),
    # Odd batches; the weight gradients split by output features, by input features, by the batch.
    Case("conv_grads_tiled", conv_grads,
         lambda r: (normal(r, 5, 12, 12, 16), normal(r, 3, 3, 16, 32), normal(r, 5, 12, 12, 32), (1, 1), (1, 1), 1),
         static_argnums=(3, 4, 5), rtol=1e-4, atol=1e-4),
    Case("conv_grads_tiled_strided_dilated", conv_grads,
         lambda r: (normal(r, 5, 17, 17, 32), normal(r, 3, 3, 32, 16), normal(r, 5, 9, 9, 16), (2, 2), (2, 2), 1),
         static_argnums=(3, 4, 5), rtol=1e-4, atol=1e-4),
    Case("conv_grads_tiled_small_features", conv_grads,
         lambda r: (normal(r, 7, 16, 16, 16), normal(r, 3, 3, 16, 16), normal(r, 7, 16, 16, 16), (1, 1), (1, 1), 1),
         static_argnums=(3, 4, 5), rtol=1e-4, atol=1e-4),
    Case("conv_grads_tiled_groups", conv_grads,
         lambda r: (normal(r, 5, 12, 12, 32), normal(r, 3, 3, 16, 32), normal(r, 5, 12, 12, 32), (1, 1), (1, 1), 2),
         static_argnums=(3, 4, 5), rtol=1e-4, atol=1e-4),
    Case("cnn_grad", jax.value_and_grad(cnn_loss),
         lambda r: ({"conv": normal(r, 3, 3, 1, 4), "dense": normal(r, 4 * 4 * 4, 10) * np.float32(0.1)},
                    normal(r, 4, 8, 8, 1), np.array([0, 3, 9, 3], np.int32)), rtol=1e-4, atol=1e-4),
    Case("fori_loop", fori_power, lambda r: (normal(r, 6, 6), normal(r, 6)), rtol=1e-4, atol=1e-5),
    Case("while_loop", while_newton_sqrt, lambda r: (np.abs(normal(r, 10)) + np.float32(0.5),)),
    Case("scan", scan_rnn, lambda r: (normal(r, 8, 8) * np.float32(0.3), normal(r, 8), normal(r, 5, 8))),
    Case("scan_grad", scan_rnn_grad, lambda r: (normal(r, 8, 8) * np.float32(0.3), normal(r, 8), normal(r, 5, 8)),
         rtol=1e-4, atol=1e-5),
    Case("scan_training_loop", scan_training_loop,
         lambda r: (mlp_params(r, [8, 16, 3]), normal(r, 4, 6, 8), r.integers(0, 3, (4, 6)).astype(np.int32)),
         rtol=1e-4, atol=1e-5),
    Case("cond_switch", cond_and_switch, lambda r: (normal(r, 5), np.int32(2))),
    Case("sort_top_k", sort_and_top_k, lambda r: (normal(r, 5, 9),)),
    Case("gather", gathers,
         lambda r: (normal(r, 6, 7), np.array([5, 0, 2, 2], np.int32), np.array([0, 5, 3], np.int32),
                    np.array([6, 1, 0], np.int32))),
    Case("scatter", scatters,
         lambda r: (normal(r, 6, 7), np.array([1, 4, 1], np.int32), normal(r, 3, 7))),
    Case("segment_sums", segment_sums,
         lambda r: (normal(r, 3000, 70), np.sort(r.integers(-1, 41, 3000)).astype(np.int32)), rtol=1e-5, atol=1e-5),
    Case("embedding_grad", embedding_grad,
         lambda r: (normal(r, 10, 4), np.array([[1, 3], [3, 9], [0, 1]], np.int32))),
    Case("cumsum", cumulative, lambda r: (normal(r, 5, 6),), rtol=1e-5, atol=1e-5),
    Case("random_typed_key", random_draws, lambda r: (jax.random.key(7),), rtol=1e-6, atol=1e-6),
    Case("random_raw_key", random_draws, lambda r: (jax.random.PRNGKey(11),), rtol=1e-6, atol=1e-6),
    Case("dropout", dropout, lambda r: (jax.random.key(3), normal(r, 4, 16))),
    Case("integer_ops", integer_ops,
         lambda r: (r.integers(-100, 100, (4, 5)).astype(np.int32), r.integers(-7, 7, (4, 5)).astype(np.int32))),
    Case("bool_ops", bool_ops,
         lambda r: (r.random((3, 4)) < 0.5, r.random((3, 4)) < 0.5, normal(r, 3, 4))),
    Case("linalg_lu_cholesky_qr", linalg_solves, lambda r: (normal(r, 2, 6, 6), normal(r, 2, 6, 3)), rtol=1e-4, atol=1e-4),
    Case("linalg_eigh_svd", linalg_spectral, lambda r: (normal(r, 2, 7, 7), normal(r, 5, 8)), rtol=1e-4, atol=1e-4),
    Case("special_functions", special_functions, lambda r: (np.abs(normal(r, 12)) * np.float32(3) + np.float32(0.1),),
         rtol=2e-5, atol=1e-6),
    Case("approx_top_k", lambda x: (lax.approx_max_k(x, 3), lax.approx_min_k(x, 2, reduction_dimension=0)),
         lambda r: (normal(r, 6, 9),)),
    Case("orthogonal_init", lambda key: jax.nn.initializers.orthogonal()(key, (16, 8)), lambda r: (jax.random.PRNGKey(4),),
         rtol=1e-4, atol=1e-5),
]

BACKENDS = ["interpreter", "cpu"]


def _is_key(x) -> bool:
    return isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)


def assert_tree_close(got, want, rtol, atol):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for index, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        if _is_key(w):
            assert _is_key(g), f"leaf {index}: a key array is expected, got {type(g).__name__}"
            g, w = jax.random.key_data(g), jax.random.key_data(w)
        else:
            assert isinstance(g, kiln.Array), f"leaf {index}: got {type(g).__name__}, not a kiln.Array"
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"leaf {index}"
        if np.issubdtype(w.dtype, np.inexact):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"leaf {index}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"leaf {index}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_kiln_jit_matches_jax_jit(case, backend):
    args = case.make_args(np.random.default_rng(0))
    want = jax.jit(case.fn, static_argnums=case.static_argnums)(*args)
    got = kiln.jit(case.fn, static_argnums=case.static_argnums, backend=backend)(*args)
    assert_tree_close(got, want, case.rtol, case.atol)


def test_training_loop_matches_jax_over_several_steps():
    """Feeding results back in (kiln Arrays as arguments) keeps matching JAX."""
    rng = np.random.default_rng(1)
    params = mlp_params(rng, [16, 32, 4])
    x, labels = normal(rng, 32, 16), rng.integers(0, 4, 32).astype(np.int32)
    step = kiln.jit(mlp_train_step, backend="interpreter")
    kiln_params, jax_params = params, params
    for _ in range(5):
        kiln_params, kiln_loss = step(kiln_params, x, labels, 0.5)
        jax_params, jax_loss = jax.jit(mlp_train_step)(jax_params, x, labels, 0.5)
        np.testing.assert_allclose(np.asarray(kiln_loss), np.asarray(jax_loss), rtol=1e-4)
    assert step.cache_size() == 1
    assert float(np.asarray(kiln_loss)) < float(np.asarray(mlp_train_step(params, x, labels, 0.5)[1]))
