"""kiln.jit results are usable wherever jax.jit results are, with the same answers.

Each producer runs under kiln.jit and under jax.jit; each consumer (common jnp
functions, jax.jit, jax.device_put, Python operators, array methods) is then
applied to both results, and the two outcomes must agree in values, dtype and
weak type, or fail with the same exception type.
"""
import copy
import os
import pathlib
import pickle
import subprocess
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]

# name -> (function, arguments): results of different dtypes, shapes and weak types.
PRODUCERS = {
    "weak_f32_scalar": (lambda lr: lr * 0.9, (0.1,)),
    "weak_i32_scalar": (lambda n: n + 1, (3,)),
    "f32_scalar": (lambda x: jnp.sum(x), (np.arange(4, dtype=np.float32),)),
    "f32_matrix": (lambda x: x * 2 - 3, (np.arange(6, dtype=np.float32).reshape(2, 3),)),
    "bf16_vector": (lambda x: x + 1, (np.arange(4).astype(ml_dtypes.bfloat16),)),
    "i32_vector": (lambda n: n * 3 - 4, (np.arange(5, dtype=np.int32),)),
    "bool_vector": (lambda x: x > 1, (np.arange(4, dtype=np.float32),)),
    "false_scalar": (lambda: jnp.zeros(()) > 1, ()),
}

JAX_ARRAY = jnp.arange(2, dtype=jnp.float32)[1]  # a strong float32 jax.Array

CONSUMERS = {
    # jax.numpy (most are jitted: they abstractify their arguments)
    "jnp.sin": jnp.sin,
    "jnp.sum": jnp.sum,
    "jnp.where": lambda x: jnp.where(x > 0, x, 0),
    "jnp.maximum": lambda x: jnp.maximum(x, 0.5),
    "jnp.stack": lambda x: jnp.stack([x, x]),
    "jnp.asarray": jnp.asarray,
    "jnp.array": jnp.array,
    "jnp.mean": jnp.mean,
    "jnp.matmul": lambda x: jnp.matmul(x, x.T),
    # jax itself
    "jax.jit": jax.jit(lambda x: x * 2),
    "jax.device_put": jax.device_put,
    "jax.grad": lambda x: jax.grad(lambda y: jnp.sum(jnp.sin(y)))(x),
    "closed_over": lambda x: jax.jit(lambda y: y + x)(1.0),
    # Python operators, with Python, numpy and JAX operands on either side
    "add_int": lambda x: x + 1,
    "radd_float": lambda x: 1.5 + x,
    "mul_self": lambda x: x * x,
    "sub_numpy_scalar": lambda x: x - np.float32(1),
    "numpy_array_left": lambda x: np.ones((), np.float32) * x,
    "jax_array_left": lambda x: JAX_ARRAY * x,
    "jax_array_right": lambda x: x * JAX_ARRAY,
    "truediv": lambda x: x / 2,
    "floordiv": lambda x: x // 2,
    "mod": lambda x: x % 3,
    "pow": lambda x: x ** 2,
    "neg": lambda x: -x,
    "abs": abs,
    "invert": lambda x: ~x,
    "and": lambda x: x & True,
    "matmul_op": lambda x: x @ x,
    "eq_scalar": lambda x: x == 4.0,
    "eq_self": lambda x: x == x,
    "ne": lambda x: x != 2,
    "lt": lambda x: x < 1,
    "ge": lambda x: x >= 1,
    # indexing and methods
    "index_ellipsis": lambda x: x[...],
    "index_first": lambda x: x[0],
    "slice": lambda x: x[1:],
    "T": lambda x: x.T,
    "astype": lambda x: x.astype(jnp.float16),
    "reshape": lambda x: x.reshape(-1),
    "sum_method": lambda x: x.sum(),
    "at_set": lambda x: x.reshape(-1).at[0].set(x.reshape(-1)[-1]),
}

# Conversions to Python values: the same value (or the same exception).
CONVERSIONS = {
    "bool": bool, "float": float, "int": int, "complex": complex, "len": len,
    "item": lambda x: x.item(), "tolist": lambda x: x.tolist(), "format": lambda x: f"{x:.3f}",
    "format_empty": lambda x: f"{x}", "iterate": lambda x: [np.asarray(row).tolist() for row in x],
    "repr": repr, "str": str, "shape": lambda x: (x.shape, x.ndim, x.size), "index": lambda x: [0, 1, 2][x],
}


@pytest.fixture(scope="module", params=sorted(PRODUCERS))
def results(request):
    """(kiln.jit's result, jax.jit's result) of one producer."""
    fn, args = PRODUCERS[request.param]
    return kiln.jit(fn)(*args), jax.jit(fn)(*args)


def outcome(fn, x):
    try:
        return fn(x), None
    except Exception as error:  # noqa: BLE001  (compared with JAX's)
        return None, type(error)


def assert_same_value(got, want):
    """Equal values, dtypes and weak types (jax.typeof reads all of them)."""
    assert jax.typeof(got) == jax.typeof(want), (jax.typeof(got), jax.typeof(want))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_results_are_kiln_arrays_typed_as_jax_jit_types_them(results):
    got, want = results
    assert isinstance(got, kiln.Array)
    assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape, want.weak_type)
    assert_same_value(got, want)


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_consumers_give_what_they_give_on_jax_jit_results(results, consumer):
    got, want = results
    got_value, got_error = outcome(CONSUMERS[consumer], got)
    want_value, want_error = outcome(CONSUMERS[consumer], want)
    assert got_error == want_error, (got_error, want_error)
    if want_error is None:
        jax.tree_util.tree_map(assert_same_value, got_value, want_value)


@pytest.mark.parametrize("conversion", sorted(CONVERSIONS))
def test_python_conversions_match_jax_arrays(results, conversion):
    got, want = results
    got_value, got_error = outcome(CONVERSIONS[conversion], got)
    want_value, want_error = outcome(CONVERSIONS[conversion], want)
    assert (got_value, got_error) == (want_value, want_error)


def test_a_false_comparison_is_false():
    # bool() once said True for every kiln Array (object truthiness).
    assert not bool(kiln.jit(lambda: jnp.zeros(()) > 1)())
    y = kiln.jit(lambda: jnp.float32(4))()
    assert bool(y == 4.0) and not bool(y != y)


def test_weak_types_carry_across_calls_as_in_jax_jit():
    params = np.ones(3, ml_dtypes.bfloat16)
    kiln_lr = kiln.jit(lambda lr: lr * 0.9)(0.1)
    jax_lr = jax.jit(lambda lr: lr * 0.9)(0.1)
    assert kiln_lr.weak_type and jax_lr.weak_type
    scale = kiln.jit(lambda p, lr: p * lr)
    got = scale(params, kiln_lr)
    want = jax.jit(lambda p, lr: p * lr)(params, jax_lr)
    assert got.dtype == want.dtype == ml_dtypes.bfloat16
    assert_same_value(got, want)
    # A strong float32 learning rate promotes instead: the weak type is part
    # of kiln.jit's signature (a second compilation), as of jax.jit's.
    strong_lr = kiln.device_put(np.float32(0.09))
    assert scale(params, strong_lr).dtype == jax.jit(lambda p, lr: p * lr)(params, np.float32(0.09)).dtype
    assert scale.cache_size() == 2


def test_pickle_and_copies_keep_values_dtype_and_weak_type(results):
    got, _ = results
    for clone in (pickle.loads(pickle.dumps(got)), copy.copy(got), copy.deepcopy(got)):
        assert isinstance(clone, kiln.Array) and clone is not got
        assert_same_value(clone, got)


def test_sharding_and_devices(results):
    got, want = results
    assert got.devices() == {kiln.devices()[0]}
    # JAX's view: host memory is its CPU device, where jax.jit put its result.
    assert got.sharding == want.sharding


def test_donated_arrays_are_deleted():
    x = kiln.device_put(np.ones(3, np.float32))
    kiln.jit(lambda x: x + 1, donate_argnums=0)(x)
    assert x.is_deleted()
    assert "deleted" in repr(x)


def test_kiln_compile_results_work_with_jax_too():
    x = kiln.compile(REPO / "examples" / "mlp.mlir")(np.ones((2, 4), np.float32))
    want = np.asarray(x)
    assert_same_value(jnp.exp(x), jnp.exp(want))
    assert_same_value(jax.jit(jnp.argmax)(x), jnp.argmax(want))


def run_python(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(kiln.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_import_kiln_does_not_import_jax_but_registers_when_jax_arrives():
    # jnp.sin abstractifies its argument: it needs JAX's tables to know kiln.Array.
    out = run_python(
        "import sys, numpy as np, kiln\n"
        "print('jax' in sys.modules)\n"
        "x = kiln.device_put(np.linspace(0, 1, 3, dtype=np.float32))\n"
        "import jax.numpy as jnp\n"
        "print(np.allclose(jnp.sin(x), np.sin(np.asarray(x)), rtol=1e-6))\n")
    assert out.split() == ["False", "True"]


def test_without_jax_operators_compute_with_numpy():
    out = run_python(
        "import sys; sys.modules['jax'] = None  # JAX cannot be imported\n"
        "import numpy as np, kiln\n"
        "x = kiln.device_put(np.arange(3, dtype=np.float32))\n"
        "y = x * 2 + x\n"
        "print(type(y).__name__, y.dtype, y.tolist(), bool(x[0] == 0), float(x[2]), len(x))\n")
    assert out.split() == ["ndarray", "float32", "[0.0,", "3.0,", "6.0]", "True", "2.0", "3"]
