"""compile().as_text() through the plugin: kiln's optimized program
(kiln/pjrt/optimized_program.h), its kernels as called computations.

For every zoo case the worker (tests/python/pjrt_worker.py, suite
optimized_program) compiles on kiln, takes the HLO module jaxlib made of
kiln's optimized program, has XLA:CPU compile and run that module, and
compares its results with jax.jit on XLA:CPU: the text shows what kiln runs,
and what kiln runs computes what the program asks for.
"""
import pytest
from test_jit_zoo import CASES
from test_pjrt_plugin import check


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_optimized_program_runs_on_xla_cpu(name):
    check("optimized_program", name)


def test_as_text_shows_kilns_kernels():
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from test_pjrt_plugin import plugin_environment  # noqa: PLC0415
    code = ("import jax, jax.numpy as jnp\n"
            "f = jax.jit(lambda a, b: jnp.exp(jnp.tanh(a @ b)) + 1)\n"
            "print(f.lower(jnp.ones((8, 16)), jnp.ones((16, 4))).compile().as_text())")
    out = subprocess.run([sys.executable, "-c", code], env=plugin_environment(), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    # One output kernel: the dot with its elementwise consumers, called from main.
    assert "%output_fusion_0" in text and "to_apply=%output_fusion_0" in text, text
    assert " dot(" in text and " tanh(" in text and " exponential(" in text, text


def test_memory_analysis_reports_the_arena():
    """temp_size_in_bytes is the arena kiln's buffer assignment gives the
    program's intermediates: a chain of two kernels with a reduction between
    them keeps an 8x4096 f32 intermediate there."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from test_pjrt_plugin import plugin_environment  # noqa: PLC0415
    code = ("import jax, jax.numpy as jnp\n"
            "def f(a):\n"
            "    h = jnp.exp(a)\n"
            "    return h / h.sum(1, keepdims=True) + jnp.sort(h, axis=1)\n"
            "m = jax.jit(f).lower(jnp.ones((8, 4096))).compile().memory_analysis()\n"
            "print(m.temp_size_in_bytes, m.argument_size_in_bytes, m.output_size_in_bytes)")
    out = subprocess.run([sys.executable, "-c", code], env=plugin_environment(), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    temp, argument, output = map(int, out.stdout.split())
    assert argument == output == 8 * 4096 * 4
    assert temp >= 8 * 4096 * 4, temp
