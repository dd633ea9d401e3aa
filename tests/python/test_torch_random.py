"""Random numbers under torch.compile(backend="kiln"): kiln's draws are not
PyTorch's bit for bit (JAX's threefry generator, seeded from PyTorch's default
generator on every call), so these tests check what a program may rely on:
torch.manual_seed repeats a run, calls differ from each other, the
distributions are right, and training with dropout trains."""
import math

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs it)")
import kiln  # noqa: E402,F401
import kiln.torch  # noqa: E402
from torch import nn  # noqa: E402

N = 200_000


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield


def _kiln(fn):
    before = kiln.torch.stats()["graphs_compiled"]
    compiled = torch.compile(fn, backend="kiln", dynamic=False)

    def call(*args):
        out = compiled(*args)
        assert kiln.torch.stats()["graphs_compiled"] > before, "nothing ran on kiln"
        return out
    return call


def _ks_statistic(samples, cdf):
    """Kolmogorov-Smirnov distance between the samples and a distribution."""
    x, _ = torch.sort(samples.double().flatten())
    n = x.numel()
    f = cdf(x)
    upper = torch.arange(1, n + 1, dtype=torch.float64) / n - f
    lower = f - torch.arange(0, n, dtype=torch.float64) / n
    return max(upper.max().item(), lower.max().item())


# A sample of 200k from the right distribution has a KS distance above 0.006
# with probability about 1e-6; the bound leaves room for the draws' rounding.
KS_BOUND = 0.008


def test_manual_seed_repeats_a_run_and_calls_differ():
    draw = _kiln(lambda x: (torch.rand(32) + x, torch.randn_like(x), torch.nn.functional.dropout(x, 0.5)))
    x = torch.ones(32)
    torch.manual_seed(7)
    first, second = draw(x), draw(x)
    torch.manual_seed(7)
    again = draw(x)
    for a, b, c in zip(first, second, again):
        assert torch.equal(a, c), "the same seed should give the same numbers"
        assert not torch.equal(a, b), "two calls should draw different numbers"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_rand_is_uniform_on_zero_one(dtype):
    u = _kiln(lambda: torch.rand(N, dtype=dtype))()
    assert u.dtype == dtype and u.shape == (N,)
    assert u.min() >= 0 and u.max() < 1
    u = u.double()
    assert abs(u.mean().item() - 0.5) < 0.005
    assert abs(u.var().item() - 1 / 12) < 0.002
    if dtype in (torch.float32, torch.float64):
        assert _ks_statistic(u, lambda t: t) < KS_BOUND


def test_randn_normal_and_uniform_have_their_distributions():
    x = torch.empty(N)
    z, normal, uniform, exp = _kiln(lambda x: (torch.randn(N), torch.empty_like(x).normal_(3.0, 2.0),
                                              torch.empty_like(x).uniform_(-1.0, 3.0),
                                              torch.empty_like(x).exponential_(2.0)))(x)
    phi = lambda t: 0.5 * (1 + torch.erf(t / math.sqrt(2)))  # noqa: E731
    assert _ks_statistic(z, phi) < KS_BOUND
    assert _ks_statistic(normal, lambda t: phi((t - 3.0) / 2.0)) < KS_BOUND
    assert _ks_statistic(uniform, lambda t: ((t + 1.0) / 4.0).clamp(0, 1)) < KS_BOUND
    assert uniform.min() >= -1 and uniform.max() < 3
    assert _ks_statistic(exp, lambda t: 1 - torch.exp(-2.0 * t)) < KS_BOUND


def test_integer_draws_permutations_and_bernoulli():
    x = torch.empty(N)
    ints, like, perm, coins, probs = _kiln(lambda x: (
        torch.randint(3, 10, (N,)), torch.randint_like(x, 5), torch.randperm(1000),
        torch.bernoulli(torch.full_like(x, 0.3)), torch.bernoulli(torch.linspace(0, 1, 11).repeat(N // 11))))(x)
    assert ints.dtype == torch.int64 and ints.min() == 3 and ints.max() == 9
    counts = torch.bincount(ints - 3, minlength=7).double()
    assert (counts / N - 1 / 7).abs().max() < 0.005
    assert like.dtype == torch.float32 and set(like.unique().tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    assert torch.equal(torch.sort(perm).values, torch.arange(1000))
    assert set(coins.unique().tolist()) == {0.0, 1.0} and abs(coins.mean().item() - 0.3) < 0.005
    per_p = probs.reshape(-1, 11).mean(0)
    assert per_p[0] == 0 and per_p[-1] == 1
    assert (per_p - torch.linspace(0, 1, 11)).abs().max() < 0.01


def test_multinomial_with_and_without_replacement():
    probs = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    with_replacement, without = _kiln(lambda p: (torch.multinomial(p, 20000, replacement=True),
                                                 torch.multinomial(p, 4)))(probs)
    frequencies = torch.stack([torch.bincount(row, minlength=4) for row in with_replacement]).double() / 20000
    assert (frequencies - probs.double()).abs().max() < 0.015
    for row in without:
        assert sorted(row.tolist()) == [0, 1, 2, 3]


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_in_training_drops_p_scales_the_rest_and_its_gradient_uses_the_same_mask(p):
    x = torch.randn(N).abs() + 0.5  # no zeros of its own
    leaf = x.clone().requires_grad_(True)
    y = _kiln(lambda t: torch.nn.functional.dropout(t, p, training=True))(leaf)
    kept = y != 0
    assert abs(1 - kept.double().mean().item() - p) < 0.005
    torch.testing.assert_close(y[kept], x[kept] / (1 - p))
    (grad,) = torch.autograd.grad(y.sum(), leaf)
    torch.testing.assert_close(grad, kept.float() / (1 - p))


def test_training_with_dropout_trains_and_eval_matches_eager():
    torch.manual_seed(0)
    inputs = torch.randn(256, 8)
    targets = (inputs[:, :4].sum(1, keepdim=True) > 0).float()
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 1))
    reference = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 1))
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="kiln", dynamic=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.BCEWithLogitsLoss()
    before = kiln.torch.stats()["graphs_compiled"]
    losses = []
    for _ in range(60):
        optimizer.zero_grad()
        loss = loss_fn(compiled(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert kiln.torch.stats()["graphs_compiled"] >= before + 2, "forward and backward should run on kiln"
    assert sum(losses[-5:]) / 5 < 0.5 * sum(losses[:5]) / 5, losses
    model.eval()
    with torch.no_grad():
        accuracy = ((compiled(inputs) > 0).float() == targets).float().mean().item()
        assert accuracy > 0.9
        model.train(False)
        torch.testing.assert_close(compiled(inputs), model(inputs), rtol=1e-5, atol=1e-6)


def test_random_ops_in_export_are_a_clear_error():
    class Noisy(nn.Module):
        def forward(self, x):
            return x + torch.rand_like(x)

    with pytest.raises(kiln.torch.UnsupportedOp, match="rand_like.*export programs take no seed"):
        kiln.torch.export(Noisy(), (torch.ones(3),))
