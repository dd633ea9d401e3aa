"""A program with a dynamic parameter shape is refused when it is compiled,
with an error that says dynamic dimensions are not supported yet (not, at
the call, that tensor<3x4xf32> is not tensor<?x4xf32>)."""
import pytest

import kiln

DYNAMIC = """
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
"""


@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_dynamic_parameter_is_unsupported(backend):
    with pytest.raises(kiln.KilnError) as error:
        kiln.compile(DYNAMIC, backend=backend)
    assert error.value.code == "UNIMPLEMENTED"
    assert "parameter 0 has type tensor<?x4xf32>; dynamic dimensions are not supported yet" in error.value.message
