"""Mistakes raise clear Python exceptions: kiln.KilnError carrying kiln's
diagnostic (an error code and a message naming what is wrong and where), or
TypeError for what kiln.jit rejects before kiln sees it. Nothing crashes."""
import re

import numpy as np
import pytest

import kiln

ADD = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %y : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


def ones(shape, dtype=np.float32):
    return np.ones(shape, dtype)


@pytest.fixture(scope="module")
def add():
    return kiln.compile(ADD)


def test_kiln_error_is_an_exception_with_code_and_message():
    assert issubclass(kiln.KilnError, Exception)
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile("func.func @main( {")
    assert isinstance(error.value.code, str) and error.value.code
    assert isinstance(error.value.message, str) and error.value.message


def test_too_few_arguments(add):
    with pytest.raises(kiln.KilnError) as error:
        add(ones((2, 3)))
    assert error.value.code == "INVALID_ARGUMENT"
    assert "2" in error.value.message and "1" in error.value.message  # expected and given counts


def test_too_many_arguments(add):
    with pytest.raises(kiln.KilnError) as error:
        add(ones((2, 3)), ones((2, 3)), ones((2, 3)))
    assert error.value.code == "INVALID_ARGUMENT"
    assert "3" in error.value.message


def test_wrong_shape_names_the_argument_and_both_types(add):
    with pytest.raises(kiln.KilnError) as error:
        add(ones((2, 3)), ones((3, 2)))
    message = error.value.message
    assert error.value.code == "INVALID_ARGUMENT"
    assert re.search(r"\b1\b", message), message           # argument index 1
    assert re.search(r"2x3|\(2, 3\)", message) and re.search(r"3x2|\(3, 2\)", message), message


def test_wrong_dtype_names_the_argument_and_both_types(add):
    with pytest.raises(kiln.KilnError) as error:
        add(ones((2, 3), np.int32), ones((2, 3)))
    message = error.value.message
    assert error.value.code == "INVALID_ARGUMENT"
    assert re.search(r"\b0\b", message), message
    assert re.search(r"f32|float32", message) and re.search(r"i32|int32", message), message


def test_parse_error_points_at_line_and_column():
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                     "  %0 = stablehlo.frobnicate %x : tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n")
    assert re.search(r":2:\d+", error.value.message), error.value.message


def test_type_error_in_the_program_names_the_op():
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile("func.func @main(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {\n"
                     "  %0 = stablehlo.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n")
    assert "stablehlo.add" in error.value.message and ":2:" in error.value.message, error.value.message


def test_unknown_entry_function():
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile(ADD, entry="nope")
    assert "nope" in error.value.message


def test_unknown_backend():
    with pytest.raises(kiln.KilnError) as error:
        kiln.Client(backend="abacus")
    assert "abacus" in error.value.message


def test_missing_program_file():
    with pytest.raises(FileNotFoundError):
        kiln.compile("/nonexistent/program.mlir")


def test_jit_rejects_a_non_array_argument():
    # The argument is named as jax.jit names it: parameter name, then its path.
    with pytest.raises(TypeError, match=r"argument tree\['f'\] is a str"):
        kiln.jit(lambda tree: tree)({"f": "text"})


def test_jit_rejects_an_unhashable_static_argument():
    with pytest.raises(TypeError, match="hashable"):
        kiln.jit(lambda x, n: x, static_argnums=1)(np.ones(2), [1, 2])


def test_jit_rejects_a_static_argnum_beyond_the_signature():
    # As jax.jit: checked against fn's signature when it is wrapped.
    with pytest.raises(ValueError, match="static_argnums"):
        kiln.jit(lambda x: x, static_argnums=3)


def test_jit_rejects_donating_a_static_argument():
    with pytest.raises(ValueError, match="static.*donate"):
        kiln.jit(lambda x, n: x, static_argnums=1, donate_argnums=1)


def test_jit_errors_of_jax_tracing_reach_the_caller():
    f = kiln.jit(lambda x, y: x @ y)
    with pytest.raises(TypeError):  # JAX's own shape error, raised while tracing
        f(ones((2, 3)), ones((2, 3)))
