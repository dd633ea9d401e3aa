"""kiln.jit takes jax.jit's signature and gives its ahead-of-time stages and its messages.

Static and donated arguments by position or by name, the options jax.jit
accepts, lower/compile/trace/eval_shape, the module's name, errors that name
the user's function and argument paths, the compilation cache setting, and
kiln.config changes after a compile.
"""
import os
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]


def shaped(x, n, mode):
    return (jnp.cos(x) if mode == "cos" else jnp.sin(x)) * n


X = np.linspace(0, 1, 5, dtype=np.float32)


@pytest.mark.parametrize("options", [{"static_argnames": ("n", "mode")}, {"static_argnums": (1, 2)}])
@pytest.mark.parametrize("call", ["positional", "keyword"])
def test_static_arguments_by_position_or_name(options, call):
    # jax.jit completes argnums from argnames (and back) through the signature.
    args, kwargs = ((X, 3, "cos"), {}) if call == "positional" else ((X,), {"n": 3, "mode": "cos"})
    got = kiln.jit(shaped, **options)(*args, **kwargs)
    want = jax.jit(shaped, **options)(*args, **kwargs)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert got.dtype == want.dtype


def test_donate_argnames_deletes_the_argument_passed_by_name():
    x = kiln.device_put(X)
    kiln.jit(lambda x, y: x + y, donate_argnames="x")(x=x, y=X)
    assert x.is_deleted()


def test_jax_jit_options_are_accepted():
    f = kiln.jit(lambda x, unused: x * 2, keep_unused=False, inline=True, device=kiln.devices()[0])
    result = f(X, X)
    np.testing.assert_array_equal(np.asarray(result), X * 2)
    assert result.device == kiln.devices()[0]


def test_jit_of_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="callable"):
        kiln.jit(3)
    with pytest.raises(TypeError, match="kiln Device"):
        kiln.jit(jnp.sin, device=jax.devices()[0])


def test_lower_compile_and_call():
    f = kiln.jit(lambda x, y: x @ y)
    a = np.ones((4, 8), np.float32)
    b = np.ones((8, 2), np.float32)
    compiled = f.lower(a, b).compile()
    np.testing.assert_array_equal(np.asarray(compiled(a, b)), a @ b)
    assert compiled.cost_analysis()["flops"] >= 2 * 4 * 8 * 2
    assert isinstance(compiled.as_text(), str) and compiled.as_text()
    with pytest.raises(TypeError, match="compiled for other arguments"):
        compiled(a[:2], b)


def test_trace_and_eval_shape_match_jax_jit():
    def fn(x, scale):
        return {"y": x * scale, "n": jnp.sum(x > 0)}
    args = (np.ones((3, 2), np.float32), 2.0)
    assert kiln.jit(fn).eval_shape(*args) == jax.jit(fn).eval_shape(*args)
    traced = kiln.jit(fn).trace(*args)
    assert str(traced.jaxpr) == str(jax.jit(fn).trace(*args).jaxpr)
    assert traced.lower().as_text() == kiln.jit(fn).lower(*args).as_text()


def test_module_is_named_after_the_function():
    def loss(params, x):
        return jnp.sum((x @ params["w"]) ** 2)
    text = kiln.jit(loss).lower({"w": np.ones((3, 1), np.float32)}, np.ones((2, 3), np.float32)).as_text()
    assert "module @jit_loss" in text and "flat_fn" not in text


def test_tracing_errors_name_the_function_and_argument_path():
    def loss(x):
        return x["w"] if x["w"].sum() > 0 else -x["w"]
    with pytest.raises(jax.errors.TracerBoolConversionError) as kiln_error:
        kiln.jit(loss)({"w": np.ones(3, np.float32)})
    with pytest.raises(jax.errors.TracerBoolConversionError) as jax_error:
        jax.jit(loss)({"w": np.ones(3, np.float32)})
    assert str(kiln_error.value) == str(jax_error.value)
    assert "function loss at" in str(kiln_error.value) and "argument x['w']" in str(kiln_error.value)


def test_a_deleted_argument_is_named_by_its_path():
    step = kiln.jit(lambda params: {"w": params["w"] + 1}, donate_argnums=0)
    params = {"w": kiln.device_put(X)}
    step(params)
    with pytest.raises(kiln.KilnError, match=r"argument params\['w'\] was deleted") as error:
        step(params)
    assert error.value.code == "FAILED_PRECONDITION"


@pytest.mark.parametrize("calls", [1, 2])  # the second call takes the fast path
def test_an_int_too_large_names_its_argument(calls):
    f = kiln.jit(lambda x: x + 1)
    for _ in range(calls - 1):
        f(1)
    with pytest.raises(OverflowError, match="argument path is x"):
        f(2 ** 40)
    with pytest.raises(OverflowError, match="argument path is x"):
        jax.jit(lambda x: x + 1)(2 ** 40)


def test_compilation_cache_directory(tmp_path):
    cache = tmp_path / "kiln-cache"
    f = kiln.jit(lambda x: jnp.tanh(x) * 3, cache_dir=cache)
    np.testing.assert_allclose(np.asarray(f(X)), np.tanh(X) * 3, rtol=1e-6)
    assert any(cache.iterdir())  # the cpu back end wrote its object code there


def test_cache_directory_from_the_environment(tmp_path):
    cache = tmp_path / "from-env"
    code = ("import numpy as np, jax.numpy as jnp, kiln\n"
            "kiln.jit(lambda x: jnp.cos(x) + 2)(np.ones(3, np.float32))\n")
    env = dict(os.environ, KILN_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent),
                                           os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert any(cache.iterdir())


def test_a_bad_cache_directory_is_rejected(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(kiln.KilnError, match="is a file"):
        kiln.jit(jnp.sin, cache_dir=a_file)
    with pytest.raises(kiln.KilnError, match="cannot create"):
        kiln.get_client(cache_dir=a_file / "below")


def test_changing_num_threads_after_a_compile_takes_effect(monkeypatch, capsys):
    monkeypatch.setattr(kiln.config, "explain_recompiles", True)
    f = kiln.jit(lambda x: x * 2)
    first = f(X)
    threads = kiln.config.num_threads + 1
    monkeypatch.setattr(kiln.config, "num_threads", threads)
    second = f(first)  # an Array of the earlier client is an argument like any other
    np.testing.assert_array_equal(np.asarray(second), X * 4)
    assert f.cache_size() == 2
    assert first.device != second.device  # another client's device
    explained = capsys.readouterr().err.splitlines()[-1]
    assert "kiln client changed" in explained and f"num_threads={threads} " in explained


def test_compile_diagnostics_name_the_file(tmp_path):
    text = (REPO / "examples" / "mlp.mlir").read_text()
    broken = text.replace("stablehlo.add %0, %2 : tensor<2x8xf32>", "stablehlo.add %0, %1 : tensor<2x8xf32>")
    assert broken != text
    path = tmp_path / "mlp.mlir"
    path.write_text(broken)
    with pytest.raises(kiln.KilnError, match=r"mlp\.mlir:\d+:\d+: error") as error:
        kiln.compile(path)
    assert "<input>" not in str(error.value)


def test_compile_of_an_empty_string_or_a_binary_file(tmp_path):
    with pytest.raises(ValueError, match="empty string"):
        kiln.compile("")
    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(kiln.KilnError, match="weights.bin: not a StableHLO text file"):
        kiln.compile(binary)


def python_blocks(markdown: pathlib.Path, heading: str) -> list[str]:
    """The ```python blocks of one section of a markdown file."""
    section = markdown.read_text().split(heading, 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]


@pytest.mark.parametrize("markdown, heading", [("README.md", "## From Python"),
                                               ("docs/python.md", "## Running StableHLO")])
def test_documented_snippets_run_as_written(markdown, heading, monkeypatch):
    monkeypatch.chdir(REPO)  # the snippets name examples/ from the repository root
    blocks = python_blocks(REPO / markdown, heading)
    assert blocks
    for block in blocks:
        exec(compile(block, f"{markdown} {heading}", "exec"), {})  # noqa: S102
