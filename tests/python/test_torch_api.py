"""kiln.torch beyond the zoo: recompilation, graph breaks, unsupported ops,
kiln.torch.export through kiln-opt and `kiln run`, DLPack both ways, and the
backend's registration."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs it)")
import kiln  # noqa: E402
import kiln.torch  # noqa: E402
from torch import nn  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def _build_bin():
    base = pathlib.Path(kiln.__file__).resolve().parents[2]  # <build>/python/kiln/__init__.py
    return base / "bin"


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield


def _compiled_count():
    return kiln.torch.stats()["graphs_compiled"]


@pytest.mark.parametrize("dynamic", [False, None])
def test_new_shapes_compile_again_and_stay_right(dynamic):
    model = nn.Sequential(nn.Linear(6, 5), nn.Tanh())
    compiled = torch.compile(model, backend="kiln", dynamic=dynamic)
    with torch.no_grad():
        for batch in (2, 3, 7, 3):
            x = torch.randn(batch, 6)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
    # dynamic=False: one graph per shape; None: a symbolic graph after the
    # second shape, compiled by kiln once per concrete shape all the same.
    before = _compiled_count()
    with torch.no_grad():
        compiled(torch.randn(3, 6))
    assert _compiled_count() == before, "a shape seen before must not compile again"


def test_symbolic_graph_picks_the_executable_by_its_size_arguments():
    # The bench's case: one function met with two sets of sizes becomes one
    # symbolic graph (sizes as SymInt arguments); kiln keeps an executable per
    # set of sizes and finds it by those integers alone. Sizes that swap
    # places must find different executables.
    def mlp(x, w1, b1, w2, b2):
        return torch.relu(x @ w1 + b1) @ w2 + b2

    compiled = torch.compile(mlp, backend="kiln")
    shapes = [(4, 3, 5), (6, 5, 3), (4, 3, 5), (6, 5, 3), (3, 6, 4)]
    for batch, width, hidden in shapes:
        args = [torch.randn(batch, width), torch.randn(width, hidden), torch.randn(hidden),
                torch.randn(hidden, 2), torch.randn(2)]
        torch.testing.assert_close(compiled(*args), mlp(*args), rtol=1e-5, atol=1e-6)
    symbolic = [p for p in list(kiln.torch._PROGRAMS) if p.compile_count() > 1]
    assert len(symbolic) == 1 and symbolic[0]._size_key is not None
    assert symbolic[0].compile_count() == 3 and len(symbolic[0]._by_sizes) == 3


def test_graph_break_runs_the_middle_in_eager():
    seen = []

    def f(x):
        y = torch.sin(x) * 2
        seen.append(float(y.sum()))  # data-dependent Python: a graph break
        return torch.relu(y - 0.5).sum(0)

    compiled = torch.compile(f, backend="kiln")
    x = torch.randn(4, 3)
    before = _compiled_count()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), f(x))
    assert _compiled_count() == before + 2, "both sides of the break should be kiln graphs"
    assert len(seen) == 2


def test_dtypes_constants_and_input_mutation_match_eager():
    def f(x, i, mask):
        x.add_(1)  # a graph input updated in place: written back as in eager
        return (x > 1, i * 2, torch.argmax(x, 1), x.to(torch.float64).mean(), torch.where(mask, i, 0.5),
                torch.clamp(i, min=0.5, max=2.5), torch.where(mask, x[:, 0], torch.tensor(2.0, dtype=torch.float64)),
                x.view(-1))

    x, i, mask = torch.randn(3, 4), torch.arange(3), torch.tensor([True, False, True])
    x_eager, x_kiln = x.clone(), x.clone()
    expected = f(x_eager, i, mask)
    got = torch.compile(f, backend="kiln")(x_kiln, i, mask)
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype
        torch.testing.assert_close(a, b)
    torch.testing.assert_close(x_kiln, x_eager)


@pytest.mark.parametrize("kernel,stride,padding", [(2, 2, 0), (3, 2, 1)])
def test_max_pool_breaks_ties_as_eager_does(kernel, stride, padding):
    """Windows of equal values (flat image regions): the gradient goes to the
    first maximum, as in PyTorch."""
    def f(x):
        return torch.nn.functional.max_pool2d(x, kernel, stride, padding, return_indices=True)

    x = torch.randint(0, 3, (2, 3, 8, 8)).float()
    for got, expected in zip(torch.compile(f, backend="kiln")(x), f(x)):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)


class Bessel(nn.Module):
    def forward(self, x):
        return torch.special.bessel_j0(x) + 1


def test_unsupported_op_names_the_op_and_the_model_line():
    with pytest.raises(Exception) as info:
        torch.compile(Bessel(), backend="kiln")(torch.randn(3))
    text = str(info.value)
    assert "aten.special_bessel_j0" in text
    assert "test_torch_api.py" in text and "torch.special.bessel_j0(x) + 1" in text
    with pytest.raises(kiln.torch.UnsupportedOp, match=r"special_bessel_j0.*test_torch_api.py"):
        kiln.torch.export(Bessel(), (torch.randn(3),))


def test_unsupported_op_falls_back_to_eager_when_asked():
    x = torch.randn(5)
    with pytest.warns(UserWarning, match="special_bessel_j0"):
        out = torch.compile(Bessel(), backend="kiln", options={"fallback": "eager"})(x)
    torch.testing.assert_close(out, Bessel()(x))


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def forward(self, x):
        return torch.softmax(self.bn(self.fc(x)), -1)


@pytest.mark.parametrize("params", ["arguments", "constants"])
def test_export_runs_through_kiln_opt_and_kiln_run(tmp_path, params):
    torch.manual_seed(0)
    model = SmallNet().eval()
    x = torch.randn(2, 4)
    exported = kiln.torch.export(model, (x,), params=params)
    expected = model(x).detach().numpy()
    kinds = [kind for kind, *_ in exported.inputs]
    if params == "arguments":
        assert kinds == ["parameter"] * 4 + ["buffer"] * 3 + ["input"]
        assert exported.inputs[0][1:3] == ("fc.weight", (3, 4))
    else:
        assert kinds == ["input"]
    assert [kind for kind, *_ in exported.outputs] == ["user_output"]
    np.testing.assert_allclose(np.asarray(exported(x)), expected, rtol=1e-5, atol=1e-6)

    path = tmp_path / "net.mlir"
    exported.save(path)
    bin_dir = _build_bin()
    subprocess.run([bin_dir / "kiln-opt", path], check=True, capture_output=True)
    run = [bin_dir / "kiln", "run", path, "--output-dir", tmp_path / "out"]
    state = dict(model.state_dict())
    for i, (kind, name, shape, dtype) in enumerate(exported.inputs):
        value = x if kind == "input" else state[name]
        np.save(tmp_path / f"in{i}.npy", value.detach().numpy())
        run += ["--input", tmp_path / f"in{i}.npy"]
    subprocess.run(run, check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "out" / "result0.npy"), expected, rtol=1e-5, atol=1e-6)


def test_dlpack_both_ways_without_copies():
    f = kiln.compile("""
      func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
        %0 = stablehlo.add %x, %x : tensor<2x3xf32>
        return %0 : tensor<2x3xf32>
      }""")
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    result = f(t)  # the torch tensor is read in place
    as_torch = kiln.torch.to_torch(result)
    torch.testing.assert_close(as_torch, t * 2)
    assert as_torch.data_ptr() == np.asarray(result).ctypes.data, "kiln -> torch should share memory"
    back = kiln.torch.from_torch(t)
    assert isinstance(back, kiln.Array)
    np.testing.assert_array_equal(np.asarray(back), t.numpy())


def test_backend_found_by_name_after_import_kiln_only():
    code = ("import torch, kiln\n"
            "f = torch.compile(lambda x: x * 3, backend='kiln')\n"
            "print(float(f(torch.ones(2)).sum()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(pathlib.Path(kiln.__file__).parents[1])})
    assert out.stdout.strip() == "6.0"


def test_lowering_table_covers_the_ops_the_zoo_needs():
    names = kiln.torch.supported_ops()
    for op in ("aten.convolution.default", "aten.convolution_backward.default", "aten.native_layer_norm.default",
               "aten.max_pool2d_with_indices_backward.default", "aten.embedding_dense_backward.default"):
        assert op in names


def test_train_digits_torch_quick_run_matches_eager():
    """examples/train_digits_torch.py end to end, eager and kiln only (inductor's
    C++ compile would take most of a minute); the full run is the example itself."""
    import os
    import re
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(pathlib.Path(kiln.__file__).parents[1]),
                                                       os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, str(REPO / "examples" / "train_digits_torch.py"), "--quick", "--epochs", "1",
                          "--model", "mlp", "--systems", "eager,kiln"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"mlp epoch  1/1  eager loss ([\d.]+) .* \|  kiln loss \1 ", run.stdout), run.stdout
    difference = re.search(r"largest parameter difference kiln vs eager ([\d.e+-]+)", run.stdout)
    assert difference and float(difference.group(1)) < 1e-4, run.stdout


@pytest.mark.parametrize("name,fn,shape", [
    ("elu", lambda x: torch.nn.functional.elu(x, 0.7), (3, 5)),
    ("repeat", lambda x: x.repeat(2, 1, 3), (3, 5)),
    ("diagonal", lambda x: torch.diagonal(x, 1) * 2, (4, 5)),
    ("group_norm", lambda x: torch.nn.functional.group_norm(x, 2, torch.linspace(0.5, 1.5, 4), torch.ones(4)),
     (2, 4, 3, 3)),
    ("upsample_size", lambda x: torch.nn.functional.interpolate(x, size=(5, 7), mode="nearest"), (1, 2, 3, 4)),
    ("upsample_scale", lambda x: torch.nn.functional.interpolate(x, scale_factor=1.5, mode="nearest"), (1, 2, 4, 4)),
    # 0-d tensors, whose dim 0 is the tensor itself (each failed in its lowering)
    ("index_select_0d", lambda x: x.index_select(0, torch.tensor([0])) * 2, ()),
    ("prod_0d", lambda x: torch.prod(x, 0) + 1, ()),
    ("argmax_argmin_0d", lambda x: torch.stack([torch.argmax(x, 0), torch.argmin(x, 0, keepdim=True)]), ()),
    ("max_min_dim_0d", lambda x: torch.max(x, 0).values + torch.min(x, 0).indices, ()),
    ("cumsum_0d", lambda x: torch.cumsum(x, 0) * 3, ()),
    ("complex_broadcast", lambda x: torch.view_as_real(torch.complex(x, x[0])), (2, 3)),
    # a boolean mask with one value for every selected element (a select)
    ("index_put_mask", lambda x: x.index_put((x > 0,), torch.tensor(-1.0)), (3, 5)),
    ("index_put_mask_rows", lambda x: x.index_put((torch.tensor([True, False, True]),), torch.arange(5.0),
                                                  accumulate=True), (3, 5)),
])
def test_more_core_ops_match_eager(name, fn, shape):
    x = torch.randn(shape)
    torch.testing.assert_close(torch.compile(fn, backend="kiln")(x), fn(x), rtol=1e-5, atol=1e-6)


def test_transposed_convolution_and_its_gradients_match_eager():
    torch.manual_seed(0)
    eager = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)
    mine = __import__("copy").deepcopy(eager)
    x = torch.randn(2, 3, 5, 5)
    out_eager, out_kiln = eager(x), torch.compile(mine, backend="kiln")(x)
    torch.testing.assert_close(out_kiln, out_eager, rtol=1e-4, atol=1e-5)
    out_eager.square().sum().backward()
    out_kiln.square().sum().backward()
    for a, b in zip(mine.parameters(), eager.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-4)


def test_each_call_reads_inputs_in_place_and_gives_fresh_results():
    """The per-call path (one C++ call through DLPack): non-contiguous inputs
    are made contiguous, results are new tensors each call (writing one does
    not change the next), bfloat16 and bool cross both ways."""
    def f(x, y, mask):
        return x * 2 + y, torch.where(mask, x, 0).to(torch.bfloat16), mask.logical_not()

    compiled = torch.compile(f, backend="kiln", dynamic=False)
    x, y = torch.randn(4, 3), torch.randn(3, 4).t()  # y is a transposed view
    mask = x > 0
    first = compiled(x, y, mask)
    for got, expected in zip(first, f(x, y, mask)):
        assert got.dtype == expected.dtype
        torch.testing.assert_close(got, expected)
    first[0].add_(100)
    torch.testing.assert_close(compiled(x, y, mask)[0], x * 2 + y)


def test_empty_tensors_run_as_in_eager():
    """An empty batch reaches kiln as a DLPack tensor with no memory (a null
    data pointer); a linear layer on it crashed the process when its dot
    kernel still ran one row block."""
    def f(x, w, b):
        return torch.nn.functional.linear(x, w, b), x.sum(0), torch.cat([x, x]) * 2

    compiled = torch.compile(f, backend="kiln", dynamic=False)
    x, w, b = torch.randn(0, 3), torch.randn(4, 3), torch.randn(4)
    assert x.data_ptr() == 0, "the case under test: an empty tensor without memory"
    for got, expected in zip(compiled(x, w, b), f(x, w, b)):
        assert got.shape == expected.shape
        torch.testing.assert_close(got, expected)


def test_a_call_with_the_wrong_shape_is_an_error_naming_the_argument():
    program = kiln.torch.GraphProgram(torch.fx.symbolic_trace(lambda a, b: (torch.ops.aten.mul.Tensor(a, b),)),
                                      example_inputs=[torch.ones(2, 3), torch.ones(2, 3)])
    torch.testing.assert_close(program([torch.full((2, 3), 2.0), torch.full((2, 3), 3.0)])[0],
                               torch.full((2, 3), 6.0))
    with pytest.raises(kiln.KilnError, match=r"argument 1 of .* is f32\[3, 2\], the program was compiled for "
                                             r"f32\[2, 3\]"):
        program([torch.ones(2, 3), torch.ones(3, 2)])
    with pytest.raises(kiln.KilnError, match=r"argument 0 .* is f64\[2, 3\]"):
        program([torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)])


def test_an_input_saved_for_backward_then_updated_in_place_is_an_error_as_in_eager():
    """AOTAutograd saves graph inputs for the backward as forward outputs: kiln
    returns those very tensors (not copies sharing memory), so autograd's
    version check sees an in-place update between forward and backward."""
    def f(x, w):
        return (x * w).sum()

    for fn in (f, torch.compile(f, backend="kiln", dynamic=False)):
        x, w = torch.randn(4, 3), torch.randn(4, 3, requires_grad=True)
        y = fn(x, w)
        x.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


class Batchwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.out = nn.Linear(4, 8), nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        return self.out(h).softmax(-1), h.reshape(-1).sum() / x.shape[0]


def test_export_with_a_symbolic_batch_runs_every_batch_size(tmp_path):
    model = Batchwise()
    exported = kiln.torch.export(model, (torch.randn(5, 4),), dynamic_shapes=({0: torch.export.Dim("batch")},))
    symbol = exported.inputs[-1][2][0]
    assert isinstance(symbol, str) and exported.inputs[-1][2][1:] == (4,)
    assert exported.outputs[0][2] == (symbol, 3)
    assert "tensor<?x4xf32>" in exported.text
    for batch in (1, 2, 9):
        x = torch.randn(batch, 4)
        for got, expected in zip(exported(x), model(x)):
            torch.testing.assert_close(got, expected.detach(), rtol=1e-5, atol=1e-6)
    path = tmp_path / "batchwise.mlir"
    exported.save(path)
    subprocess.run([str(_build_bin() / "kiln-opt"), str(path)], check=True, capture_output=True)


def test_export_with_symbolic_sizes_a_lowering_cannot_take_is_a_clear_error():
    class Pool(nn.Module):
        def forward(self, x):
            return nn.functional.adaptive_avg_pool2d(x, 3)

    with pytest.raises(kiln.torch.UnsupportedOp, match="adaptive_avg_pool2d.*symbolic shapes"):
        kiln.torch.export(Pool(), (torch.randn(1, 2, 9, 9),), dynamic_shapes=({2: torch.export.Dim("h")},))


def test_a_backward_run_from_inside_a_compiled_frame_is_not_traced_by_dynamo():
    """kiln's call path is skipped by TorchDynamo through a flag on its code
    (no per-call disable wrapper): a backward graph that autograd.grad runs
    inside a torch.compile'd function (a graph break there) runs on kiln."""
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    compiled_model = torch.compile(model, backend="kiln")

    @torch.compile(backend="kiln")
    def step(x):
        loss = compiled_model(x).square().sum()
        return loss, torch.autograd.grad(loss, list(model.parameters()))

    x = torch.randn(3, 4)
    before = kiln.torch.stats()["graphs_compiled"]
    with torch._dynamo.config.patch(trace_autograd_ops=False):
        for _ in range(2):
            loss, grads = step(x)
    assert kiln.torch.stats()["graphs_compiled"] >= before + 2  # the forward and the backward
    expected = torch.autograd.grad(model(x).square().sum(), list(model.parameters()))
    for got, want in zip(grads, expected):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
