"""Scans whose steps multiply a slice of their inputs by a fixed weight.

while_simplify computes such a projection as one dot over all of the inputs
before the loop (hoistSlicedProjections, docs/cpu_backend.md "Flat loops");
the cases here hold the shapes that rewrite takes and those it must leave
alone, each through kiln.jit on the cpu back end and the interpreter against
jax.jit. tests/lit/passes/while_simplify.mlir pins the rewrite itself.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln


def normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def rnn(xs, h0, wx, wh, b):
    """The bench's recurrent cell: h = tanh(x_t wx + h wh + b)."""
    def cell(h, x):
        return jnp.tanh(x @ wx + h @ wh + b), None
    return lax.scan(cell, h0, xs)[0]


def rnn_outputs(xs, h0, wx, wh, b):
    """The same cell, every step's state stacked (a scan's ys)."""
    def cell(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h
    return lax.scan(cell, h0, xs)


def rnn_reversed(xs, h0, wx, wh, b):
    """Backwards over the inputs: the slice index is not the counter itself."""
    def cell(h, x):
        return jnp.tanh(x @ wx + h @ wh + b), None
    return lax.scan(cell, h0, xs, reverse=True)[0]


def lstm(xs, h0, c0, wx, wh, b):
    """An LSTM cell: the input projection is 4x wider than the inputs."""
    def cell(state, x):
        h, c = state
        gates = x @ wx + h @ wh + b
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    return lax.scan(cell, (h0, c0), xs)


def weight_on_the_left(xs, h0, wx, wh):
    """Column-vector convention: wx @ x_t with x_t of shape [in, batch]."""
    def cell(h, x):
        return jnp.tanh(wx @ x + wh @ h), None
    return lax.scan(cell, h0, xs)[0]


def first_steps_only(xs, h0, wx, wh):
    """A fori_loop reading 2 of the 8 slices as xs[i] (JAX wraps a negative i
    first, so the slice's start is not the counter itself): left in the loop.
    The rule for loops reading few slices is pinned by the lit test."""
    def body(i, h):
        return jnp.tanh(xs[i] @ wx + h @ wh)
    return lax.fori_loop(0, 2, body, h0)


def two_sliced_operands(xs, ys, h0):
    """Both operands sliced: no outside weight, nothing to hoist."""
    def cell(h, xy):
        x, y = xy
        return jnp.tanh(h + x @ y), None
    return lax.scan(cell, h0, (xs, ys))[0]


def integer_projection(xs, h0, wx):
    """int32 sums: exact on every path."""
    def cell(h, x):
        return (h * 3 + x @ wx) % 1000, None
    return lax.scan(cell, h0, xs)[0]


def rnn_grad(xs, h0, wx, wh, b):
    return jax.grad(lambda wx, wh: jnp.sum(rnn(xs, h0, wx, wh, b) ** 2), argnums=(0, 1))(wx, wh)


def rnn_args(rng, steps, batch, hidden, inputs=None):
    inputs = inputs or hidden
    return (normal(rng, steps, batch, inputs), normal(rng, batch, hidden), normal(rng, inputs, hidden, scale=inputs ** -0.5),
            normal(rng, hidden, hidden, scale=hidden ** -0.5), normal(rng, hidden, scale=0.1))


CASES = {
    "rnn_64x8x128": (rnn, lambda r: rnn_args(r, 64, 8, 128), 1e-4),
    "rnn_32x32x512": (rnn, lambda r: rnn_args(r, 32, 32, 512), 1e-4),
    "rnn_64x1x32": (rnn, lambda r: rnn_args(r, 64, 1, 32), 1e-4),
    "rnn_inputs_narrower": (rnn, lambda r: rnn_args(r, 9, 3, 40, inputs=24), 1e-4),
    "rnn_outputs": (rnn_outputs, lambda r: rnn_args(r, 12, 4, 48), 1e-4),
    "rnn_reversed": (rnn_reversed, lambda r: rnn_args(r, 12, 4, 48), 1e-4),
    "lstm": (lstm, lambda r: (normal(r, 10, 4, 16), normal(r, 4, 32), normal(r, 4, 32), normal(r, 16, 128, scale=0.25),
                              normal(r, 32, 128, scale=0.18), normal(r, 128, scale=0.1)), 1e-4),
    "weight_on_the_left": (weight_on_the_left, lambda r: (normal(r, 7, 20, 3), normal(r, 24, 3), normal(r, 24, 20, scale=0.2),
                                                          normal(r, 24, 24, scale=0.2)), 1e-4),
    "first_steps_only": (first_steps_only, lambda r: (normal(r, 8, 4, 16), normal(r, 4, 16), normal(r, 16, 16, scale=0.25),
                                                      normal(r, 16, 16, scale=0.25)), 1e-4),
    "two_sliced_operands": (two_sliced_operands, lambda r: (normal(r, 6, 4, 5), normal(r, 6, 5, 4), normal(r, 4, 4)), 1e-4),
    "integer_projection": (integer_projection, lambda r: (r.integers(-50, 50, (11, 3, 7)).astype(np.int32),
                                                          r.integers(-50, 50, (3, 5)).astype(np.int32),
                                                          r.integers(-50, 50, (7, 5)).astype(np.int32)), 0),
    "rnn_grad": (rnn_grad, lambda r: rnn_args(r, 16, 4, 32), 1e-4),
}


PARAMS = [(name, backend) for name in sorted(CASES) for backend in ("interpreter", "cpu")
          if not (backend == "interpreter" and name == "rnn_32x32x512")]  # (the interpreter takes minutes there)


@pytest.mark.parametrize("name,backend", PARAMS)
def test_scan_matches_jax(name, backend):
    fn, make_args, tol = CASES[name]
    args = make_args(np.random.default_rng(0))
    want = jax.jit(fn)(*args)
    got = kiln.jit(fn, backend=backend)(*args)
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        if tol == 0:
            np.testing.assert_array_equal(g, w)
        else:
            scale = max(float(np.max(np.abs(w))), 1.0)
            np.testing.assert_allclose(g, w, rtol=0, atol=tol * scale)


# Which cases have their projection hoisted: a dot_general over all the steps
# (its result's leading dims include the steps; steps x batch rows where the
# inputs are contracted on their last dim) after while_simplify.
HOISTED = {"rnn_64x8x128": "512x128", "rnn_64x1x32": "64x32", "rnn_inputs_narrower": "27x40",
           "rnn_outputs": "48x48", "lstm": "40x128", "weight_on_the_left": "24x7x3",
           "integer_projection": "33x5"}
KEPT = {"rnn_reversed": "48x48", "first_steps_only": "32x16", "two_sliced_operands": "24x"}


@pytest.mark.parametrize("name", sorted(HOISTED) + sorted(KEPT))
def test_projection_hoisted_where_it_pays(name, tmp_path):
    fn, make_args, _ = CASES[name]
    text = jax.jit(fn).lower(*make_args(np.random.default_rng(0))).as_text()
    kiln.compile(text, dump_dir=str(tmp_path))
    (after,) = tmp_path.glob("*_after_while_simplify.mlir")
    dots = [line for line in after.read_text().splitlines() if "stablehlo.dot_general" in line]
    whole = [line for line in dots if "-> tensor<" + HOISTED.get(name, KEPT.get(name)) in line]
    if name in HOISTED:
        assert whole, "no dot over all the steps:\n" + "\n".join(dots)
    else:
        assert not whole, "a dot over all the steps:\n" + "\n".join(whole)
