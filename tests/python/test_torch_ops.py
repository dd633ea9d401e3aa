"""kiln.torch's lowerings of the less common core ATen ops, each against eager
PyTorch: the forward result and, where the op is differentiable, the input's
gradient (of a weighted sum of the outputs, so every output element counts)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs it)")
import kiln  # noqa: E402,F401
import kiln.torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _check(fn, *inputs, grad=True, rtol=1e-5, atol=1e-6, options=None):
    """fn compiled by kiln against eager: outputs, and gradients of every
    floating input that requires them (fallback "error": the graph must run on kiln)."""
    def run(f):
        args = [x.detach().clone().requires_grad_(grad and x.is_floating_point()) if isinstance(x, torch.Tensor)
                else x for x in inputs]
        outs = _leaves(f(*args))
        grads = []
        if grad:
            floats = [o for o in outs if o.is_floating_point() or o.is_complex()]
            weights = [torch.linspace(0.5, 1.5, o.numel(), dtype=torch.float64).reshape(o.shape) for o in floats]
            loss = sum((torch.view_as_real(o) if o.is_complex() else o).double().mul(
                w[..., None] if o.is_complex() else w).sum() for o, w in zip(floats, weights))
            params = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
            grads = torch.autograd.grad(loss, params)
        return [o.detach() for o in outs], grads

    before = kiln.torch.stats()["graphs_compiled"]
    got, got_grads = run(torch.compile(fn, backend="kiln", dynamic=False, options=options or {}))
    assert kiln.torch.stats()["graphs_compiled"] > before, "nothing ran on kiln"
    expected, expected_grads = run(fn)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=rtol, atol=atol, equal_nan=True)
    for g, e in zip(got_grads, expected_grads):
        torch.testing.assert_close(g, e, rtol=rtol, atol=atol)


def _distinct(*shape, dtype=torch.float32):
    """Values without ties (a permutation of a range, scaled)."""
    n = int(np.prod(shape))
    return (torch.randperm(n, generator=torch.Generator().manual_seed(n)).to(dtype) / n - 0.5).reshape(shape)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_sort(descending, dim):
    _check(lambda x: torch.sort(x, dim=dim, descending=descending), _distinct(5, 7))


@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_keeps_ties_in_order_and_puts_nan_where_eager_does(descending):
    x = torch.tensor([[2.0, 1.0, float("nan"), 1.0, 3.0, 2.0, -1.0, float("nan"), 1.0]])
    _check(lambda x: torch.sort(x, stable=True, descending=descending), x, grad=False)
    ints = torch.tensor([[3, 1, 2, 1, 3, 0, 1]])
    _check(lambda x: torch.sort(x, stable=True, descending=descending), ints, grad=False)


@pytest.mark.parametrize("largest", [True, False])
def test_topk(largest):
    _check(lambda x: torch.topk(x, 3, dim=1, largest=largest), _distinct(4, 9))
    _check(lambda x: torch.topk(x, 2, dim=0, largest=largest, sorted=True), _distinct(6, 3))


def test_max_pool3d_and_its_gradient():
    x = _distinct(2, 3, 6, 7, 5)
    _check(lambda x: F.max_pool3d(x, 2), x)
    _check(lambda x: F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=1, return_indices=True), x)
    _check(lambda x: F.max_pool3d(x, 3, stride=2, ceil_mode=True, dilation=(1, 2, 1)), x)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool3d_and_its_gradient(count_include_pad):
    x = torch.randn(2, 3, 6, 7, 5)
    _check(lambda x: F.avg_pool3d(x, 2), x)
    _check(lambda x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=count_include_pad), x)
    _check(lambda x: F.avg_pool3d(x, 2, divisor_override=3), x)


@pytest.mark.parametrize("output_size", [(3, 2), (4, 5), (1, 1), (7, 3)])
def test_adaptive_avg_pool2d_any_size_and_its_gradient(output_size):
    _check(lambda x: F.adaptive_avg_pool2d(x, output_size), torch.randn(2, 3, 9, 10))


@pytest.mark.parametrize("output_size", [(2, 3, 1), (4, 3, 5)])
def test_adaptive_avg_pool3d_and_its_gradient(output_size):
    _check(lambda x: F.adaptive_avg_pool3d(x, output_size), torch.randn(2, 3, 6, 7, 5))


def test_real_ffts_and_their_gradients():
    x = torch.randn(4, 16)
    for norm in ("backward", "ortho", "forward"):
        _check(lambda x: torch.fft.rfft(x, norm=norm).abs(), x, rtol=1e-4, atol=1e-5)
        _check(lambda x: torch.fft.irfft(torch.fft.rfft(x, norm=norm), n=16, norm=norm), x, rtol=1e-4, atol=1e-5)
    _check(lambda x: torch.fft.rfft2(x), torch.randn(3, 8, 6), rtol=1e-4, atol=1e-5)


def test_complex_ffts():
    x = torch.randn(3, 8)
    _check(lambda x: torch.view_as_real(torch.fft.fft(x)), x, rtol=1e-4, atol=1e-5)
    _check(lambda x: torch.fft.ifft(torch.fft.fft(x) * 2).real, x, rtol=1e-4, atol=1e-5)
    _check(lambda x: torch.fft.fftn(x, norm="ortho").abs(), torch.randn(2, 4, 6), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x = torch.randn(4, 5)
    index = torch.tensor([[0, 1, 0, 3, 1], [2, 0, 0, 1, 1]])
    src = _distinct(2, 5)
    _check(lambda x, s: x.scatter_reduce(0, index, s, reduce, include_self=include_self), x, src,
           grad=reduce in ("sum", "mean"))
    ints = torch.arange(20).reshape(4, 5)
    _check(lambda x: x.scatter_reduce(0, index, torch.arange(10).reshape(2, 5) * 3, reduce,
                                      include_self=include_self), ints, grad=False)


def test_masked_scatter():
    x = torch.randn(3, 4)
    mask = torch.tensor([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
    _check(lambda x, s: x.masked_scatter(mask, s), x, torch.randn(10))
    _check(lambda x, s: x.masked_scatter(mask[0], s), x, torch.randn(12))  # a broadcast mask


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_cdist_and_pdist(p):
    a, b = torch.randn(2, 5, 3), torch.randn(2, 4, 3)
    _check(lambda a, b: torch.cdist(a, b, p=p), a, b, rtol=1e-4, atol=1e-5)
    _check(lambda a: F.pdist(a, p=p), torch.randn(6, 4), rtol=1e-4, atol=1e-5)


def test_as_strided_over_a_whole_tensor():
    x = torch.randn(4, 6)
    _check(lambda x: torch.as_strided(x * 2, (3, 3), (6, 2), 1), x)
    _check(lambda x: (x + 1).as_strided((5, 2), (4, 1)).sum(0), x)


@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear2d_and_its_gradient(align_corners):
    x = torch.randn(2, 3, 5, 7)
    _check(lambda x: F.interpolate(x, size=(9, 4), mode="bilinear", align_corners=align_corners), x)
    _check(lambda x: F.interpolate(x, scale_factor=2.5, mode="bilinear", align_corners=align_corners), x)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    bag = torch.nn.EmbeddingBag(10, 4, mode=mode)
    weight = bag.weight.detach()
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
    offsets = torch.tensor([0, 4, 4, 6])  # one empty bag

    def f(w):
        return F.embedding_bag(indices, w, offsets, mode=mode)
    _check(f, weight)
    _check(lambda w: F.embedding_bag(indices.reshape(3, 3), w, mode=mode), weight)
    if mode == "sum":
        _check(lambda w, s: F.embedding_bag(indices, w, offsets, mode="sum", per_sample_weights=s), weight,
               torch.rand(9))


@pytest.mark.parametrize("mode,padding", [("bilinear", "zeros"), ("bilinear", "border"), ("nearest", "zeros")])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_and_its_gradients(mode, padding, align_corners):
    x = torch.randn(2, 3, 5, 6)
    grid = torch.rand(2, 4, 7, 2) * 2.4 - 1.2  # some points outside the image
    _check(lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align_corners), x, grid,
           rtol=1e-4, atol=1e-5)


def test_pow_with_an_integral_exponent_and_its_gradient():
    # x ** 2's backward asks for x ** 1.0: lowered as multiplies (lax.integer_pow).
    x = _distinct(3, 5) * 4
    for exponent in (2, 1.0, 3, -2.0, 0, 0.5):
        _check(lambda x: x ** exponent, x + (3 if exponent in (-2.0, 0.5) else 0))
    _check(lambda x: x ** 2, torch.arange(-3, 4), grad=False)  # stays an integer


def test_item_inside_a_graph_feeds_the_ops_that_use_it():
    def f(x):
        return x * x.sum().item() + x.max().item()
    x = _distinct(4, 3)
    _check(f, x, grad=False)  # by default TorchDynamo breaks the graph at .item()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):  # AOTAutograd makes it a cast
        torch._dynamo.reset()
        _check(f, x, grad=False)
        _check(lambda x: x * x.sum().item(), torch.arange(6), grad=False)
    # aten._local_scalar_dense itself, as a symbolic trace records it
    from torch.fx.experimental.proxy_tensor import make_fx
    for x in (_distinct(4, 3), torch.arange(6)):
        gm = make_fx(f, tracing_mode="symbolic")(x)
        assert any(n.target is torch.ops.aten._local_scalar_dense.default for n in gm.graph.nodes)
        got = kiln.torch.GraphProgram(gm, example_inputs=[x])([x])[0]
        torch.testing.assert_close(got, f(x), rtol=1e-5, atol=1e-6)


def test_a_graph_returning_item_is_refused_by_name():
    from torch.fx.experimental.proxy_tensor import make_fx
    x = torch.ones(3)
    gm = make_fx(lambda x: (x.sum().item(), x + 1), tracing_mode="symbolic")(x)
    with pytest.raises(kiln.torch.UnsupportedOp, match=r"returning the number _local_scalar_dense"):
        kiln.torch.GraphProgram(gm, example_inputs=[x])


def test_nonzero_breaks_the_graph_or_is_refused_by_name():
    def f(x):
        return torch.nonzero(x > 0).float().sum(0) + x.sum()
    x = _distinct(4, 5)
    _check(f, x, grad=False)  # TorchDynamo's graph break: kiln compiles the parts around it
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        torch._dynamo.reset()
        with pytest.raises(Exception, match=r"aten.nonzero.default \(its result's shape depends on the tensor's "
                                            r"values.*test_torch_ops.py"):
            torch.compile(f, backend="kiln")(x)
        torch._dynamo.reset()
        with pytest.warns(UserWarning, match="nonzero"):
            got = torch.compile(f, backend="kiln", options={"fallback": "eager"})(x)
    torch.testing.assert_close(got, f(x))


def _aten_graph(build, *inputs):
    """An FX graph of ATen calls (build(graph, *placeholders) returns the
    outputs) with PyTorch's fake-tensor metadata, as AOTAutograd gives kiln."""
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp
    graph = torch.fx.Graph()
    placeholders = [graph.placeholder(f"in{i}") for i in range(len(inputs))]
    graph.output(build(graph, *placeholders))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    FakeTensorProp(gm).propagate(*inputs)
    return gm


def test_atan2_out_into_a_tensor_of_the_graph_against_eager():
    aten = torch.ops.aten

    def build(g, a, b):
        buffer = g.call_function(aten.empty.memory_format, ([3, 4],), {"dtype": torch.float32})
        result = g.call_function(aten.atan2.out, (a, b), {"out": buffer})
        return (g.call_function(aten.mul.Tensor, (result, 2.0)),)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    gm = _aten_graph(build, a, b)
    got = kiln.torch.GraphProgram(gm, example_inputs=[a, b])([a, b])
    torch.testing.assert_close(got[0], gm(a, b)[0], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(got[0], torch.atan2(a, b) * 2, rtol=1e-6, atol=1e-6)


def test_atan2_out_into_a_graph_input_is_refused():
    gm = _aten_graph(lambda g, a, b, out: (g.call_function(torch.ops.aten.atan2.out, (a, b), {"out": out}),),
                     *[torch.randn(3)] * 3)
    with pytest.raises(kiln.torch.UnsupportedOp, match=r"atan2.out \(it writes into its out= tensor \(in2\) in "
                                                        r"place, which is a graph input"):
        kiln.torch.GraphProgram(gm, example_inputs=[torch.randn(3)] * 3)


@pytest.mark.parametrize("training", [False, True])
def test_native_batch_norm_legit_in_place_form_against_eager(training):
    aten = torch.ops.aten
    x, weight, bias = torch.randn(4, 3, 5, 5), torch.randn(3), torch.randn(3)

    def build(g, x, weight, bias):
        stats = [g.call_function(aten.full.default, ([3], value), {"dtype": torch.float32}) for value in (0.5, 2.0)]
        norm = g.call_function(aten._native_batch_norm_legit.default, (x, weight, bias, *stats, training, 0.1, 1e-5))
        return tuple(g.call_function(operator.getitem, (norm, i)) for i in range(3))
    import operator
    gm = _aten_graph(build, x, weight, bias)
    got = kiln.torch.GraphProgram(gm, example_inputs=[x, weight, bias])([x, weight, bias])
    for g, e in zip(got, gm(x, weight, bias)):
        assert g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)


def test_native_batch_norm_legit_training_on_input_statistics_is_refused():
    def build(g, x, weight, bias, mean, var):
        return (g.call_function(torch.ops.aten._native_batch_norm_legit.default,
                                (x, weight, bias, mean, var, True, 0.1, 1e-5)),)
    inputs = [torch.randn(4, 3, 2), torch.randn(3), torch.randn(3), torch.zeros(3), torch.ones(3)]
    gm = _aten_graph(build, *inputs)
    with pytest.raises(kiln.torch.UnsupportedOp, match=r"running_mean \(in3\) in place, which is a graph input"):
        kiln.torch.GraphProgram(gm, example_inputs=inputs)


def test_sym_storage_offset_is_refused_by_name():
    gm = _aten_graph(lambda g, x: (g.call_function(torch.ops.aten.add.Tensor, (
        x, g.call_function(torch.ops.aten.sym_storage_offset.default, (x,)))),), torch.randn(4)[1:])
    with pytest.raises(kiln.torch.UnsupportedOp, match=r"sym_storage_offset.*kiln's programs take tensors' values"):
        kiln.torch.check_graph(gm)
