"""Custom calls and sharding annotations that JAX emits, through kiln.jit.

- jnp.linalg.eig / eigvals (LAPACK geev) and lax.linalg.tridiagonal_solve
  (gtsv) run on both back ends: checked against NumPy (eigenvalues sorted,
  A v = lambda v, LAPACK's normalization) and against jax.jit (whose CPU
  results come from LAPACK itself).
- Custom call targets kiln lacks, JAX's host callbacks among them, fail when
  the function is compiled, naming the target, never when a result is read.
- with_sharding_constraint (sdy.sharding_constraint under a module-level
  sdy.mesh) is an identity on one device.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding, PartitionSpec

import kiln

BACKENDS = ["cpu", "interpreter"]
# (dtype, relative tolerance of eigenvalues and residuals)
EIG_TYPES = [(np.float32, 1e-4), (np.float64, 1e-10), (np.complex64, 1e-4), (np.complex128, 1e-10)]


def random_matrix(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def sorted_by_value(values, vectors=None):
    """Eigenvalues (and vector columns) in one order: by real, then imaginary part, rounded so
    that the order does not hinge on rounding noise."""
    key = np.lexsort((np.round(values.imag, 4), np.round(values.real, 4)), axis=-1)
    values = np.take_along_axis(values, key, -1)
    if vectors is None:
        return values
    return values, np.take_along_axis(vectors, key[..., None, :], -1)


def check_eigenpairs(a, values, vectors, tol, left=False):
    """A v = lambda v (or u^H A = lambda u^H), unit 2-norm, largest entry real."""
    a = a.astype(np.complex128)
    values, vectors = np.asarray(values, np.complex128), np.asarray(vectors, np.complex128)
    scale = max(1.0, np.abs(a).max())
    if left:
        residual = np.conj(np.swapaxes(vectors, -1, -2)) @ a - values[..., :, None] * np.conj(np.swapaxes(vectors, -1, -2))
    else:
        residual = a @ vectors - vectors * values[..., None, :]
    assert np.abs(residual).max() <= tol * scale * a.shape[-1], np.abs(residual).max()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=-2), 1.0, rtol=tol * 10)
    largest = np.take_along_axis(vectors, np.abs(vectors).argmax(-2)[..., None, :], -2)
    assert np.abs(largest.imag).max() <= tol * 10


def with_x64(dtype):
    """JAX keeps float64 and complex128 only with x64 enabled."""
    return jax.enable_x64(np.dtype(dtype) in (np.float64, np.complex128))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,tol", EIG_TYPES, ids=lambda x: getattr(x, "__name__", str(x)))
def test_eig_matches_numpy_and_jax(backend, dtype, tol):
    rng = np.random.default_rng(0)
    a = random_matrix(rng, (2, 5, 5), dtype)
    with with_x64(dtype):
        values, vectors = kiln.jit(jnp.linalg.eig, backend=backend)(a)
        jax_values, jax_vectors = jax.jit(jnp.linalg.eig)(a)
    values, vectors = np.asarray(values), np.asarray(vectors)
    assert values.dtype == np.asarray(jax_values).dtype and vectors.dtype == np.asarray(jax_vectors).dtype
    check_eigenpairs(a, values, vectors, tol)
    np.testing.assert_allclose(sorted_by_value(values), sorted_by_value(np.linalg.eig(a.astype(np.complex128))[0]),
                               rtol=tol * 10, atol=tol * 10)
    # Normalized eigenvectors of simple eigenvalues are unique up to a unit
    # factor (LAPACK's fixes the phase of complex ones but leaves the sign of
    # real ones to its Schur vectors): they match jax.jit's, aligned.
    ours = sorted_by_value(values, vectors)
    theirs = sorted_by_value(np.asarray(jax_values), np.asarray(jax_vectors))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol * 10, atol=tol * 10)
    overlap = np.sum(np.conj(ours[1]) * theirs[1], axis=-2, keepdims=True)
    np.testing.assert_allclose(np.abs(overlap), 1.0, rtol=tol * 100)
    np.testing.assert_allclose(ours[1] * overlap / np.abs(overlap), theirs[1], rtol=tol * 100, atol=tol * 100)


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_eig_gives_real_values_and_conjugate_pairs_as_lapack(backend):
    """A real matrix's complex eigenvalues come in exact conjugate pairs, the
    positive imaginary part first; its real eigenvalues are exactly real."""
    rotation = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
    q = np.linalg.qr(np.random.default_rng(1).standard_normal((3, 3)))[0]
    a = (q @ rotation @ q.T).astype(np.float64)
    with jax.enable_x64(True):
        values, vectors = (np.asarray(x) for x in kiln.jit(jnp.linalg.eig, backend=backend)(a))
        jax_values = np.asarray(jax.jit(jnp.linalg.eigvals)(a))
    real = np.abs(values.imag) == 0
    assert real.sum() == 1 and np.abs(jax_values.imag == 0).sum() == 1
    np.testing.assert_array_equal(vectors[:, real].imag, 0)
    pair = np.flatnonzero(~real)
    assert pair[1] == pair[0] + 1 and values[pair[0]].imag > 0
    assert values[pair[1]] == np.conj(values[pair[0]])
    np.testing.assert_array_equal(vectors[:, pair[1]], np.conj(vectors[:, pair[0]]))
    check_eigenpairs(a, values, vectors, 1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_left_eigenvectors(backend):
    a = random_matrix(np.random.default_rng(2), (4, 4), np.float32)
    fn = lambda x: jax.lax.linalg.eig(x, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
    values, left, right = (np.asarray(x) for x in kiln.jit(fn, backend=backend)(a))
    check_eigenpairs(a, values, right, 1e-4)
    check_eigenpairs(a, values, left, 1e-4, left=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eigvals_next_to_other_results(backend):
    """The issue's program: every result reads back, the eigenvalues included."""
    a = random_matrix(np.random.default_rng(3), (6, 6), np.float32)
    values, doubled = kiln.jit(lambda x: (jnp.linalg.eigvals(x), x * 2), backend=backend)(a)
    np.testing.assert_array_equal(np.asarray(doubled), a * 2)
    np.testing.assert_allclose(sorted_by_value(np.asarray(values)), sorted_by_value(np.linalg.eigvals(a.astype(np.float64))),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("a", [np.full((3, 3), np.nan, np.float32), np.array([[np.inf, 1], [0, 1]], np.float32)],
                         ids=["nan", "inf_triangular"])
def test_eig_of_non_finite_is_nan_as_jax(backend, a):
    values, vectors = kiln.jit(jnp.linalg.eig, backend=backend)(a)
    jax_values, jax_vectors = jax.jit(jnp.linalg.eig)(a)
    np.testing.assert_array_equal(np.isnan(np.asarray(values)), np.isnan(np.asarray(jax_values)))
    np.testing.assert_array_equal(np.isnan(np.asarray(vectors)), np.isnan(np.asarray(jax_vectors)))
    assert np.isnan(np.asarray(values)).all()


def dense_tridiagonal(dl, d, du):
    n = d.shape[-1]
    a = np.zeros(d.shape + (n,), np.result_type(d, np.float64))
    idx = np.arange(n)
    a[..., idx, idx] = d
    a[..., idx[1:], idx[:-1]] = dl[..., 1:]
    a[..., idx[:-1], idx[1:]] = du[..., :-1]
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-10), (np.complex64, 1e-4)],
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_tridiagonal_solve_matches_numpy_and_jax(backend, dtype, tol):
    rng = np.random.default_rng(4)
    # Not diagonally dominant, so gtsv interchanges rows.
    dl, d, du = (random_matrix(rng, (3, 7), dtype) for _ in range(3))
    dl[..., 0] = 0
    du[..., -1] = 0
    b = random_matrix(rng, (3, 7, 2), dtype)
    with with_x64(dtype):
        x = np.asarray(kiln.jit(jax.lax.linalg.tridiagonal_solve, backend=backend)(dl, d, du, b))
        want = np.asarray(jax.jit(jax.lax.linalg.tridiagonal_solve)(dl, d, du, b))
    assert x.dtype == want.dtype
    a = dense_tridiagonal(dl, d, du)
    np.testing.assert_allclose(x, np.linalg.solve(a, b.astype(a.dtype)).astype(x.dtype), rtol=tol * 100, atol=tol * 100)
    np.testing.assert_allclose(x, want, rtol=tol * 100, atol=tol * 100)


@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_tridiagonal_solve_is_nan_as_jax(backend):
    dl, d, du = np.array([0.0, 1.0, 0.0], np.float32), np.ones(3, np.float32), np.array([1.0, 0.0, 0.0], np.float32)
    b = np.ones((3, 1), np.float32)
    x = np.asarray(kiln.jit(jax.lax.linalg.tridiagonal_solve, backend=backend)(dl, d, du, b))
    want = np.asarray(jax.jit(jax.lax.linalg.tridiagonal_solve)(dl, d, du, b))
    np.testing.assert_array_equal(np.isnan(x), np.isnan(want))
    assert np.isnan(x).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_perturbed_tridiagonal_solve(backend):
    """perturb_singular=True: a regular system is solved as without it; a
    singular one gets a finite solution."""
    rng = np.random.default_rng(7)
    dl, d, du = (random_matrix(rng, (2, 6), np.float32) for _ in range(3))
    dl[..., 0] = 0
    du[..., -1] = 0
    b = random_matrix(rng, (2, 6, 3), np.float32)
    solve = lambda *args: jax.lax.linalg.tridiagonal_solve(*args, perturb_singular=True)
    x = np.asarray(kiln.jit(solve, backend=backend)(dl, d, du, b))
    np.testing.assert_allclose(x, np.asarray(jax.jit(solve)(dl, d, du, b)), rtol=1e-2, atol=1e-2)
    a = dense_tridiagonal(dl, d, du)
    np.testing.assert_allclose(a @ x, b, rtol=1e-3, atol=1e-3)
    singular = (np.array([0.0, 1.0, 0.0], np.float32), np.ones(3, np.float32), np.array([1.0, 0.0, 0.0], np.float32))
    assert np.isfinite(np.asarray(kiln.jit(solve, backend=backend)(*singular, np.ones((3, 1), np.float32)))).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_eigh_tridiagonal_vectors(backend):
    """jax.scipy.linalg.eigh_tridiagonal finds eigenvectors by inverse
    iteration through the perturbed tridiagonal solve (then QR, orgqr)."""
    rng = np.random.default_rng(8)
    d, e = rng.standard_normal(8).astype(np.float32), rng.standard_normal(7).astype(np.float32)
    fn = lambda d, e: jax.scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=False)
    values, vectors = (np.asarray(x) for x in kiln.jit(fn, backend=backend)(d, e))
    a = np.diag(d.astype(np.float64)) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(a @ vectors, vectors * values, atol=1e-3)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(8), atol=1e-4)


# -- compile-time errors --------------------------------------------------------

def debug_print(x):
    jax.debug.print("x = {x}", x=x)
    return x * 2


def pure_callback(x):
    return jax.pure_callback(lambda v: np.sin(v), jax.ShapeDtypeStruct(x.shape, x.dtype), x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [debug_print, pure_callback], ids=lambda f: f.__name__)
def test_host_callbacks_fail_at_compile_time_saying_what_they_are(backend, fn):
    with pytest.raises(kiln.KilnError) as error:
        kiln.jit(fn, backend=backend)(np.ones(3, np.float32))
    assert error.value.code == "UNIMPLEMENTED"
    assert "@xla_ffi_python_cpu_callback" in error.value.message
    assert "jax.debug.print, jax.pure_callback" in error.value.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_target_fails_at_compile_time_naming_it_and_its_location(backend):
    program = """
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = stablehlo.add %x, %x : tensor<2xf32>
      %1 = stablehlo.custom_call @no_such_kernel(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %0, %1 : tensor<2xf32>, tensor<2xf32>
    }
    """
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile(program, backend=backend)
    assert error.value.code == "UNIMPLEMENTED"
    assert "@no_such_kernel" in error.value.message and ":4:" in error.value.message


# -- sharding annotations -------------------------------------------------------

@pytest.fixture(params=["shardy", "gspmd"])
def partitioner(request):
    """JAX's sharding dialect: Shardy (sdy.* ops, the default) or GSPMD
    (@Sharding custom calls with mhlo.sharding attributes)."""
    before = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", request.param == "shardy")
    yield request.param
    jax.config.update("jax_use_shardy_partitioner", before)


@pytest.mark.parametrize("backend", BACKENDS)
def test_with_sharding_constraint_is_an_identity_on_one_device(backend, partitioner):
    mesh = jax.make_mesh((1, 1), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))

    def fn(a):
        b = jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, PartitionSpec("x", ("y",))))
        c = jax.lax.with_sharding_constraint(jnp.sin(b), NamedSharding(mesh, PartitionSpec()))
        return c + 1

    a = random_matrix(np.random.default_rng(5), (4, 6), np.float32)
    annotation = "sdy.sharding_constraint" if partitioner == "shardy" else "@Sharding"
    assert annotation in jax.jit(fn).lower(a).as_text()
    np.testing.assert_allclose(np.asarray(kiln.jit(fn, backend=backend)(a)), np.asarray(jax.jit(fn)(a)),
                               rtol=1e-6, atol=1e-6)


# -- related: argmax of booleans ------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_argmax_of_bools_matches_jax(backend):
    """Its reducer's false constant once merged (CSE) with the init value
    outside the body, which the cpu back end's reduce could not see."""
    rng = np.random.default_rng(6)
    for x in [rng.random(17) < 0.3, np.zeros(5, bool), np.ones(4, bool)]:
        got = np.asarray(kiln.jit(jnp.argmax, backend=backend)(x))
        assert got == np.asarray(jax.jit(jnp.argmax)(x)), x
