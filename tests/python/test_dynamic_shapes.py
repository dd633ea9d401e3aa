"""Shape-polymorphic programs: parameters with `?` dimensions, as jax.export
writes them for symbolic shapes. kiln compiles such a program once per list
of argument shapes (refine_shapes makes it static for them: shape arithmetic
folds, dynamism ops become their static twins, JAX's shape assertions are
checked) and runs it like any other. Results are checked against JAX's own
jitted functions for each concrete shape, on both back ends; a call whose
shapes violate the polymorphic specification fails with JAX's message."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

import kiln

BACKENDS = ["cpu", "interpreter"]


def exported(fn, *specs):
    """fn exported for the symbolic shapes `specs` (("n, 3", np.float32), ...)."""
    scope = export.SymbolicScope()  # one scope: a name means one size in every spec
    args = [jax.ShapeDtypeStruct(export.symbolic_shape(shape, scope=scope), dtype) for shape, dtype in specs]
    return export.export(jax.jit(fn))(*args)


def mean_rows_plus_first(a, b):
    return jnp.sum(a, axis=0) / a.shape[0] + b[0]


def reshaped_with_arange(x):
    flat = x.reshape(-1)
    return flat * 2.0 + jnp.arange(flat.shape[0], dtype=x.dtype)


def padded_concat(x):
    y = jnp.concatenate([x, x[::-1]], axis=0)
    return jnp.pad(y, ((1, 2), (0, 1)))


def broadcast_outer(x, y):
    return x[:, None] * y[None, :] + jnp.ones((x.shape[0], y.shape[0]), x.dtype)


def cumulative_sum(x):  # a stablehlo.dynamic_reduce_window custom call
    return jnp.cumsum(x, axis=0)


def argmax_rows(x):  # a variadic reduce printed with locations on its reducer's arguments
    return jnp.argmax(x, axis=1)


def conv_same(x, k):
    return jax.lax.conv(x, k, (1, 1), "SAME")


def halves(x):  # a dimension expression: 2*n rows
    return x.reshape(x.shape[0] // 2, 2, -1).sum(1)


CASES = [
    (mean_rows_plus_first, [("n, 3", np.float32), ("n, 3", np.float32)], [(2, 3), (5, 3)]),
    (reshaped_with_arange, [("a, b", np.float32)], [(2, 3), (4, 1), (1, 7)]),
    (padded_concat, [("n, k", np.float32)], [(3, 2), (1, 4)]),
    (broadcast_outer, [("n", np.float32), ("m", np.float32)], [(3,), (5,)]),
    (cumulative_sum, [("n, 2", np.float32)], [(6, 2), (1, 2)]),
    (argmax_rows, [("b, n", np.float32)], [(3, 4), (2, 7)]),
    (conv_same, [("b, 2, h, w", np.float32), ("3, 2, 3, 3", np.float32)], [(2, 2, 5, 6), (3, 2, 3, 3)]),
    (halves, [("2*n, m", np.float32)], [(6, 3), (2, 5)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, specs, shapes", CASES, ids=[c[0].__name__ for c in CASES])
def test_polymorphic_export_runs_for_concrete_shapes(backend, fn, specs, shapes):
    exp = exported(fn, *specs)
    text = exp.mlir_module()
    assert "?" in text.split("func.func public @main")[1].split("{")[0]  # the parameters are dynamic
    compiled = kiln.compile(text, backend=backend)
    rng = np.random.default_rng(0)
    if fn is broadcast_outer:  # two independent symbolic sizes: vary both
        calls = [[rng.standard_normal(s).astype(np.float32) for s in shapes],
                 [rng.standard_normal(s).astype(np.float32) for s in reversed(shapes)]]
    elif fn is conv_same:  # an image and a kernel
        calls = [[rng.standard_normal(s).astype(np.float32) for s in shapes],
                 [rng.standard_normal((1, 2, 4, 3)).astype(np.float32), rng.standard_normal(shapes[1]).astype(np.float32)]]
    elif len(specs) == 2:
        calls = [[rng.standard_normal(s).astype(np.float32) for _ in specs] for s in shapes]
    else:
        calls = [[rng.standard_normal(s).astype(np.float32)] for s in shapes]
    for args in calls:
        got = np.asarray(compiled(*args))
        np.testing.assert_allclose(got, np.asarray(jax.jit(fn)(*args)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_polymorphic_portable_artifact(backend):
    """The serialized form (MLIR bytecode with VHLO) of a polymorphic export."""
    exp = exported(mean_rows_plus_first, ("n, 3", np.float32), ("n, 3", np.float32))
    compiled = kiln.compile(exp.mlir_module_serialized, backend=backend)
    for rows in (1, 4):
        a = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        b = -a
        np.testing.assert_allclose(np.asarray(compiled(a, b)), np.asarray(jax.jit(mean_rows_plus_first)(a, b)), rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_violated_shape_assertion_is_a_clear_error(backend):
    exp = exported(mean_rows_plus_first, ("n, 3", np.float32), ("n, 3", np.float32))
    compiled = kiln.compile(exp.mlir_module(), backend=backend)
    a, b = np.ones((4, 3), np.float32), np.ones((2, 3), np.float32)
    with pytest.raises(kiln.KilnError) as error:
        compiled(a, b)
    assert error.value.code == "INVALID_ARGUMENT"
    assert "shape assertion failed" in error.value.message
    assert "Found inconsistency between dimension size args[1].shape[0] (= 2)" in error.value.message
    # The executable stays usable with shapes that fit.
    np.testing.assert_allclose(np.asarray(compiled(a, a)), np.asarray(mean_rows_plus_first(a, a)), rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_argument_that_does_not_fit_the_parameter(backend):
    text = """
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
"""
    compiled = kiln.compile(text, backend=backend)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(compiled(x)), x)
    with pytest.raises(kiln.KilnError) as error:
        compiled(np.ones((3, 5), np.float32))
    assert error.value.code == "INVALID_ARGUMENT"
    assert "argument 0 of @main: expected tensor<?x4xf32>, given tensor<3x5xf32>" in error.value.message
