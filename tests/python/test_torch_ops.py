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
