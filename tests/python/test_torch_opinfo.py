"""PyTorch's own op database (OpInfo, `torch.testing._internal`) through
`torch.compile(backend="kiln")`, each op against eager PyTorch: the first
sample input of every op that runs in float32 on the CPU, its results and,
for differentiable ops, the gradients of its inputs.

Each op either agrees with eager, or kiln refuses it with its UnsupportedOp
naming the ATen op (the issue's contract for an op without a lowering). The
refused ops are listed below with the reason, so that a newly refused op
fails here, and so does a listed op that starts to work (remove it then)."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs it)")
pytest.importorskip("expecttest", reason="expecttest (PyTorch's test helpers need it) is not installed")
import kiln.torch  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

OPS = {(op.name + ("." + op.variant_test_name if op.variant_test_name else "")): op
       for op in op_db if torch.float32 in op.supported_dtypes("cpu")}

# Ops whose results eager PyTorch leaves unspecified: uninitialized memory.
# Only the shapes and dtypes are compared.
UNSPECIFIED_VALUES = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
                      "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
                      "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train",
                      "nn.functional.feature_alpha_dropout.without_train", "bernoulli", "normal",
                      "normal.number_mean", "uniform", "cauchy", "exponential", "geometric", "log_normal",
                      "randn", "randn_like", "rand_like", "randint", "randint_like", "multinomial"}

# Gradient tolerances (rtol, atol) where eager's own float32 gradient is far
# from the float64 one: logcumsumexp's sample has |x| up to 1e4, and eager is
# 2.8e-3 off the float64 gradient there (kiln 5.0e-3).
GRADIENT_TOLERANCE = {"logcumsumexp": (1e-3, 1e-2)}

# The ops kiln refuses (UnsupportedOp), each with the ATen overload its
# refusal names (in the forward graph or, for a few, the backward one). None
# is a core ATen op (test_refused_ops_are_outside_the_core_set): they are
# linear algebra, special functions and composites that PyTorch's core
# decompositions leave whole; "complex32" is a dtype kiln has no counterpart for.
REFUSED = {
    "_batch_norm_with_update": "aten._batch_norm_with_update_functional.default",
    "fft.ihfft2": "aten._conj_physical.default",
    "fft.ihfftn": "aten._conj_physical.default",
    "histogramdd": "aten._histogramdd_bin_edges.default",
    "linalg.det": "aten._linalg_det.default",
    "linalg.eigh": "aten._linalg_eigh.default",
    "linalg.eigvalsh": "aten._linalg_eigh.default",
    "linalg.matrix_rank.hermitian": "aten._linalg_eigh.default",
    "linalg.slogdet": "aten._linalg_slogdet.default",
    "logdet": "aten._linalg_slogdet.default",
    "linalg.solve": "aten._linalg_solve_ex.default",
    "linalg.solve_ex": "aten._linalg_solve_ex.default",
    "linalg.tensorsolve": "aten._linalg_solve_ex.default",
    "linalg.cond": "aten._linalg_svd.default",
    "linalg.matrix_rank": "aten._linalg_svd.default",
    "linalg.svd": "aten._linalg_svd.default",
    "linalg.svdvals": "aten._linalg_svd.default",
    "norm.nuc": "aten._linalg_svd.default",
    "svd": "aten._linalg_svd.default",
    "nn.functional.bilinear": "aten._trilinear.default",
    "_upsample_bilinear2d_aa": "aten._upsample_bilinear2d_aa.default",
    "nn.functional.adaptive_max_pool1d": "aten.adaptive_max_pool2d.default",
    "nn.functional.adaptive_max_pool2d": "aten.adaptive_max_pool2d.default",
    "nn.functional.adaptive_max_pool3d": "aten.adaptive_max_pool3d.default",
    "cholesky_inverse": "aten.cholesky_inverse.default",
    "cholesky_solve": "aten.cholesky_solve.default",
    "dist": "aten.dist.default",
    "geqrf": "aten.geqrf.default",
    "grid_sampler_3d": "aten.grid_sampler_3d.default",
    "hash_tensor": "aten.hash_tensor.default",
    "histc": "aten.histc.default",
    "histogram": "aten.histogram.bin_ct",
    "index_reduce.amax": "aten.index_reduce.default",
    "index_reduce.amin": "aten.index_reduce.default",
    "index_reduce.mean": "aten.index_reduce.default",
    "index_reduce.prod": "aten.index_reduce.default",
    "kthvalue": "aten.kthvalue.default",
    "linalg.cholesky": "aten.linalg_cholesky_ex.default",
    "linalg.cholesky_ex": "aten.linalg_cholesky_ex.default",
    "linalg.eig": "aten.linalg_eig.default",
    "linalg.eigvals": "aten.linalg_eig.default",
    "linalg.householder_product": "aten.linalg_householder_product.default",
    "linalg.inv": "aten.linalg_inv_ex.default",
    "linalg.inv_ex": "aten.linalg_inv_ex.default",
    "linalg.tensorinv": "aten.linalg_inv_ex.default",
    "linalg.ldl_factor": "aten.linalg_ldl_factor_ex.default",
    "linalg.ldl_factor_ex": "aten.linalg_ldl_factor_ex.default",
    "linalg.ldl_solve": "aten.linalg_ldl_solve.default",
    "linalg.lu": "aten.linalg_lu.default",
    "linalg.lu_factor": "aten.linalg_lu_factor_ex.default",
    "linalg.lu_factor_ex": "aten.linalg_lu_factor_ex.default",
    "lu": "aten.linalg_lu_factor_ex.default",
    "linalg.lu_solve": "aten.linalg_lu_solve.default",
    "lu_solve": "aten.linalg_lu_solve.default",
    "matrix_exp": "aten.linalg_matrix_exp.default",
    "linalg.matrix_sqrth": "aten.linalg_matrix_sqrth.default",
    "linalg.pinv": "aten.linalg_pinv.atol_rtol_tensor",
    "linalg.pinv.hermitian": "aten.linalg_pinv.atol_rtol_tensor",
    "linalg.pinv.singular": "aten.linalg_pinv.atol_rtol_tensor",
    "pinverse": "aten.linalg_pinv.atol_rtol_tensor",
    "linalg.polar": "aten.linalg_polar.default",
    "linalg.qr": "aten.linalg_qr.default",
    "linalg.solve_triangular": "aten.linalg_solve_triangular.default",
    "lu_unpack": "aten.lu_unpack.default",
    "median": "aten.median.default",
    "mode": "aten.mode.default",
    "nanmedian": "aten.nanmedian.default",
    "masked.median": "aten.nanmedian.dim",
    "combinations": "aten.nonzero_static.default",
    "nonzero_static": "aten.nonzero_static.default",
    "ormqr": "aten.ormqr.default",
    "polar": "aten.polar.default",
    "nn.functional.pad.replicate": "aten.replication_pad1d_backward.default",
    "nn.functional.pad.replicate_negative": "aten.replication_pad2d_backward.default",
    "_segment_reduce.lengths": "aten.segment_reduce.default",
    "_segment_reduce.offsets": "aten.segment_reduce.default",
    "special.airy_ai": "aten.special_airy_ai.default",
    "special.bessel_j0": "aten.special_bessel_j0.default",
    "special.bessel_j1": "aten.special_bessel_j1.default",
    "special.bessel_y0": "aten.special_bessel_y0.default",
    "special.bessel_y1": "aten.special_bessel_y1.default",
    "special.chebyshev_polynomial_t": "aten.special_chebyshev_polynomial_t.default",
    "special.chebyshev_polynomial_u": "aten.special_chebyshev_polynomial_u.default",
    "special.chebyshev_polynomial_v": "aten.special_chebyshev_polynomial_v.default",
    "special.chebyshev_polynomial_w": "aten.special_chebyshev_polynomial_w.default",
    "special.erfcx": "aten.special_erfcx.default",
    "special.log_ndtr": "aten.special_erfcx.default",
    "special.hermite_polynomial_h": "aten.special_hermite_polynomial_h.default",
    "special.hermite_polynomial_he": "aten.special_hermite_polynomial_he.default",
    "special.laguerre_polynomial_l": "aten.special_laguerre_polynomial_l.default",
    "special.legendre_polynomial_p": "aten.special_legendre_polynomial_p.default",
    "special.modified_bessel_i0": "aten.special_modified_bessel_i0.default",
    "special.modified_bessel_i1": "aten.special_modified_bessel_i1.default",
    "special.modified_bessel_k0": "aten.special_modified_bessel_k0.default",
    "special.modified_bessel_k1": "aten.special_modified_bessel_k1.default",
    "special.scaled_modified_bessel_k0": "aten.special_scaled_modified_bessel_k0.default",
    "special.scaled_modified_bessel_k1": "aten.special_scaled_modified_bessel_k1.default",
    "special.shifted_chebyshev_polynomial_t": "aten.special_shifted_chebyshev_polynomial_t.default",
    "special.shifted_chebyshev_polynomial_u": "aten.special_shifted_chebyshev_polynomial_u.default",
    "special.shifted_chebyshev_polynomial_v": "aten.special_shifted_chebyshev_polynomial_v.default",
    "special.shifted_chebyshev_polynomial_w": "aten.special_shifted_chebyshev_polynomial_w.default",
    "special.spherical_bessel_j0": "aten.special_spherical_bessel_j0.default",
    "triangular_solve": "aten.triangular_solve.default",
    "unbind_copy": "aten.unbind_copy.int",
    "stft": "aten.unfold.default",
    "unfold": "aten.unfold.default",
    "unfold_copy": "aten.unfold.default",
    "chalf": "complex32",
    "nn.functional.linear_cross_entropy.chunked": "torch_nn._linear_cross_entropy_batch_chunked.default",
    "nn.functional.linear_cross_entropy.chunked_none": "torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default",
}

# An op whose results differ from eager's by PyTorch's own decomposition:
# only the first result is compared. The flash-attention op's second result
# is the log-sum-exp, which the core decomposition (inductor's too) replaces
# by the attention weights.
FIRST_RESULT_ONLY = {"torch.ops.aten._scaled_dot_product_flash_attention_for_cpu"}


def _leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _compare(got, expected, values):
    got, expected = _leaves(got), _leaves(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if not isinstance(e, torch.Tensor):
            assert g == e
            continue
        assert isinstance(g, torch.Tensor) and g.shape == e.shape and g.dtype == e.dtype, (g, e)
        if values:
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5, equal_nan=True)


def _unsupported(error):
    """kiln's refusal in an exception chain: an UnsupportedOp, or a dtype
    kiln has no counterpart for (complex32)."""
    while error is not None:
        if isinstance(error, kiln.torch.UnsupportedOp) or "has no kiln counterpart" in str(error):
            return error
        error = error.__cause__ or error.__context__
    return None


def _first_sample(op, requires_grad):
    for sample in op.sample_inputs("cpu", torch.float32, requires_grad=requires_grad):
        try:
            tensor, args, kwargs = _fresh_copy(sample)
            op.op(tensor, *args, **kwargs)
        except Exception:  # a sample eager itself rejects
            continue
        return sample
    return None


def _fresh_copy(sample):
    """The sample's arguments, copied: ops that update an input in place (batch
    norm's running statistics) must not see the other run's update."""
    def copy(value):
        if isinstance(value, torch.Tensor):
            return value.detach().clone().requires_grad_(value.requires_grad)
        return value
    tree_map = torch.utils._pytree.tree_map
    return tree_map(copy, sample.input), tree_map(copy, sample.args), tree_map(copy, sample.kwargs)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield


def _differentiable(values):
    return [t for t in _leaves(values) if isinstance(t, torch.Tensor) and t.requires_grad]


def _weighted_sum(results):
    """A weighted sum of every floating output, so each element's gradient counts."""
    floats = [torch.view_as_real(t.resolve_conj()) if t.is_complex() else t for t in _differentiable(results)]
    return sum((t * torch.linspace(0.5, 1.5, t.numel()).reshape(t.shape)).sum() for t in floats)


def _check_against_eager(name, op, sample, grad):
    eager_input, eager_args, eager_kwargs = _fresh_copy(sample)
    expected = op.op(eager_input, *eager_args, **eager_kwargs)
    kiln_input, kiln_args, kiln_kwargs = _fresh_copy(sample)
    got = torch.compile(lambda *a, **k: op.op(*a, **k), backend="kiln")(kiln_input, *kiln_args, **kiln_kwargs)
    if name in FIRST_RESULT_ONLY:
        got, expected = got[0], expected[0]
    _compare(got, expected, values=name not in UNSPECIFIED_VALUES)

    eager_inputs, kiln_inputs = _differentiable([eager_input, *eager_args]), _differentiable([kiln_input, *kiln_args])
    if not grad or not eager_inputs or not _differentiable(expected) or name in UNSPECIFIED_VALUES:
        return
    expected_grads = torch.autograd.grad(_weighted_sum(expected), eager_inputs, allow_unused=True)
    got_grads = torch.autograd.grad(_weighted_sum(got), kiln_inputs, allow_unused=True)  # kiln's backward graph
    for g, e in zip(got_grads, expected_grads):
        assert (g is None) == (e is None)
        if e is not None:
            rtol, atol = GRADIENT_TOLERANCE.get(name, (1e-4, 1e-5))
            torch.testing.assert_close(g, e, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_eager(name):
    op = OPS[name]
    grad = op.supports_autograd
    sample = _first_sample(op, requires_grad=grad)
    if sample is None:
        pytest.skip("no sample input of this op runs in eager PyTorch")
    try:
        _check_against_eager(name, op, sample, grad)
    except Exception as error:  # noqa: BLE001
        refusal = _unsupported(error)
        if refusal is None:
            raise
        assert name in REFUSED, f"newly refused: {refusal}"
        assert REFUSED[name] in str(refusal), f"refused for another reason than {REFUSED[name]}: {refusal}"
        return
    assert name not in REFUSED, f"{name} runs now: remove it from REFUSED"


def test_refused_ops_are_outside_the_core_set():
    """kiln lowers the core ATen set: every op refused above is outside it."""
    for name, overload in REFUSED.items():
        namespace, _, _ = overload.partition(".")
        if namespace != "aten":  # complex32 (a dtype), and torch_nn's own ops, which core never tags
            continue
        namespace, packet, variant = overload.split(".")
        op = getattr(getattr(getattr(torch.ops, namespace), packet), variant)
        assert torch.Tag.core not in op.tags, f"{name}: {overload} is a core ATen op"
