"""The parts of the StableHLO language that JAX programs reach less often, on
both back ends (issue 26):

- complex-valued chlo ops (acos, acosh, asin, asinh, atan, atanh, cosh, sinh)
  and tan, against NumPy, branch cuts included;
- chlo.top_k of booleans and jnp.argmax of a bool vector, against NumPy;
- the deprecated ops the StableHLO dialect still accepts (dot, einsum,
  broadcast, torch_index_select, ...), against NumPy.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln

BACKENDS = ["cpu", "interpreter"]

COMPLEX_FUNCTIONS = {
    "arccos": (jnp.arccos, np.arccos),
    "arccosh": (jnp.arccosh, np.arccosh),
    "arcsin": (jnp.arcsin, np.arcsin),
    "arcsinh": (jnp.arcsinh, np.arcsinh),
    "arctan": (jnp.arctan, np.arctan),
    "arctanh": (jnp.arctanh, np.arctanh),
    "cosh": (jnp.cosh, np.cosh),
    "sinh": (jnp.sinh, np.sinh),
    "tan": (jnp.tan, np.tan),
}


def complex_inputs(dtype):
    """Points in every quadrant, on and near the real and imaginary axes (where the branch cuts
    of the inverse functions lie), with both signs of zero."""
    rng = np.random.default_rng(26)
    points = rng.uniform(-3, 3, 24) + 1j * rng.uniform(-3, 3, 24)
    axes = [2.5 + 0j, -2.5 + 0j, 0.5 + 0j, 2.5 - 0j, -2.5 - 0j, 0 + 2.5j, 0 - 2.5j, 0 + 0.5j, 1e-3 + 1j, -1e-3 - 1j]
    return np.concatenate([points, np.array(axes)]).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(COMPLEX_FUNCTIONS))
def test_complex_chlo_functions_match_numpy(backend, dtype, name):
    jax_fn, np_fn = COMPLEX_FUNCTIONS[name]
    z = complex_inputs(dtype)
    with jax.enable_x64(dtype == np.complex128):
        text = jax.jit(jax_fn).lower(z).as_text()
        got = np.asarray(kiln.jit(jax_fn, backend=backend)(z))
    if name != "tan":
        assert "chlo." in text  # the op under test reaches kiln as a chlo op
    expected = np_fn(z.astype(np.complex128))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("backend", BACKENDS)
def test_top_k_of_booleans_and_argmax(backend):
    x = np.array([[False, True, False, True, True, False], [False, False, False, False, False, True]])
    values, indices = kiln.jit(lambda b: jax.lax.top_k(b, 4), backend=backend)(x)
    order = np.argsort(~x, axis=-1, kind="stable")[:, :4]  # true first, lower index first
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, -1))
    # argmax of a bool vector (once broke dominance in cse on the cpu back end)
    for row in x:
        assert int(kiln.jit(jnp.argmax, backend=backend)(row)) == int(np.argmax(row))


DEPRECATED = """
func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x3x4xf32>, %i: tensor<6xi32>)
    -> (tensor<3x5xf32>, tensor<2x4x3xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<4x3xf32>) {
  %0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.einsum %c, %a, config = "bik,ik->bki" : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x4x3xf32>
  %2 = stablehlo.broadcast %a, sizes = [2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %3 = "stablehlo.torch_index_select"(%b, %i) {dim = 1 : i64, batch_dims = 0 : i64}
      : (tensor<4x5xf32>, tensor<6xi32>) -> tensor<4x6xf32>
  %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %5 = stablehlo.unary_einsum %c, config = "bik->ki" : (tensor<2x3x4xf32>) -> tensor<4x3xf32>
  return %0, %1, %2, %4, %5 : tensor<3x5xf32>, tensor<2x4x3xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<4x3xf32>
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_deprecated_ops_match_numpy(backend):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    c = rng.standard_normal((2, 3, 4)).astype(np.float32)
    i = np.array([4, 0, 2, 2, 1, 3], np.int32)
    dot, einsum, broadcast, select, unary = (np.asarray(r) for r in kiln.compile(DEPRECATED, backend=backend)(a, b, c, i))
    np.testing.assert_allclose(dot, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(einsum, np.einsum("bik,ik->bki", c, a), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(broadcast, np.broadcast_to(a, (2, 3, 4)))
    np.testing.assert_array_equal(select, np.take(b, i, axis=1).T)
    np.testing.assert_allclose(unary, np.einsum("bik->ki", c), rtol=1e-5, atol=1e-5)
