"""torch.compile(model, backend="kiln") against eager PyTorch: a zoo of models,
forward results and the gradient of every parameter, then short training runs.

Tolerances: float32 throughout; kiln reorders sums (fused reductions, its own
GEMM), so results agree to rounding: rtol 1e-4 / atol 1e-5 for forward
results and gradients, 1e-4 relative for losses after training steps.
"""
import copy

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs it)")
import kiln.torch  # noqa: E402
from torch import nn  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(2, ceil_mode=True)
        self.head = nn.Linear(6, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        x = self.avg(torch.relu(self.conv2(x)))
        return self.head(x.flatten(1))


class LSTMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, batch_first=True)
        self.out = nn.Linear(6, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.out(y[:, -1])


class EmbeddingClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8, padding_idx=0)
        self.out = nn.Linear(8, 5)

    def forward(self, tokens, labels):
        logits = self.out(self.embed(tokens).mean(1))
        return nn.functional.cross_entropy(logits, labels)


class InPlaceViews(nn.Module):
    """An in-place update through a chain of views, then on the base."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        window = y.view(2, 4, 8).transpose(1, 2)[:, 1:3]
        window.mul_(2.0)
        y.add_(1.0)
        y[:, 0] = y[:, -1]
        return torch.tanh(y).sum(-1)


def transformer():
    return nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)


ZOO = {
    "mlp": (lambda: nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4),
                                  nn.LogSoftmax(-1)),
            lambda: (torch.randn(5, 8),)),
    "cnn": (CNN, lambda: (torch.randn(3, 1, 8, 8),)),
    "transformer": (transformer, lambda: (torch.randn(2, 5, 16),)),
    "lstm": (LSTMHead, lambda: (torch.randn(2, 5, 4),)),
    "embedding_cross_entropy": (EmbeddingClassifier,
                                lambda: (torch.tensor([[1, 2, 0, 4], [5, 5, 19, 0], [3, 7, 8, 9]]),
                                         torch.tensor([0, 4, 2]))),
    "inplace_views": (InPlaceViews, lambda: (torch.randn(8, 8),)),
}


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    allow_rnn = torch._dynamo.config.allow_rnn
    torch._dynamo.config.allow_rnn = True  # compile nn.LSTM instead of breaking the graph around it
    yield
    torch._dynamo.config.allow_rnn = allow_rnn


def _scalar_loss(out):
    return out if out.dim() == 0 else (out * torch.linspace(-1, 1, out.numel()).reshape(out.shape)).sum()


@pytest.mark.parametrize("name", list(ZOO))
def test_forward_and_gradients_match_eager(name):
    make, inputs = ZOO[name]
    torch.manual_seed(0)
    eager = make()
    mine = copy.deepcopy(eager)
    args = inputs()
    before = kiln.torch.stats()["graphs_compiled"]
    compiled = torch.compile(mine, backend="kiln", dynamic=False)
    out_kiln, out_eager = compiled(*args), eager(*args)
    torch.testing.assert_close(out_kiln, out_eager, rtol=RTOL, atol=ATOL)
    _scalar_loss(out_kiln).backward()
    _scalar_loss(out_eager).backward()
    assert kiln.torch.stats()["graphs_compiled"] >= before + 2, "forward and backward should both run on kiln"
    for (pname, p_eager), (_, p_kiln) in zip(eager.named_parameters(), mine.named_parameters()):
        assert p_kiln.grad is not None, pname
        torch.testing.assert_close(p_kiln.grad, p_eager.grad, rtol=RTOL, atol=ATOL, msg=lambda m: f"{pname}: {m}")
    for (bname, b_eager), (_, b_kiln) in zip(eager.named_buffers(), mine.named_buffers()):
        torch.testing.assert_close(b_kiln, b_eager, rtol=RTOL, atol=ATOL, msg=lambda m: f"{bname}: {m}")


@pytest.mark.parametrize("name", ["cnn", "transformer"])
def test_inference_in_eval_mode_matches_eager(name):
    make, inputs = ZOO[name]
    torch.manual_seed(1)
    model = make()
    with torch.no_grad():
        model(*inputs())  # batch norm statistics that are not the initial ones
    model.eval()
    args = inputs()
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(model, backend="kiln", dynamic=False)(*args), model(*args),
                                   rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name,lr", [("mlp", 0.1), ("cnn", 0.05), ("embedding_cross_entropy", 0.5)])
def test_training_steps_match_eager(name, lr):
    make, inputs = ZOO[name]
    torch.manual_seed(2)
    eager = make()
    mine = copy.deepcopy(eager)
    step_kiln = torch.compile(mine, backend="kiln", dynamic=False)
    opt_eager = torch.optim.SGD(eager.parameters(), lr=lr, momentum=0.9)
    opt_kiln = torch.optim.SGD(mine.parameters(), lr=lr, momentum=0.9)
    losses_eager, losses_kiln = [], []
    for step in range(5):
        torch.manual_seed(100 + step)
        args = inputs()
        for model, opt, losses in ((eager, opt_eager, losses_eager), (step_kiln, opt_kiln, losses_kiln)):
            opt.zero_grad()
            loss = _scalar_loss(model(*args))
            loss.backward()
            opt.step()
            losses.append(loss.item())
    torch.testing.assert_close(torch.tensor(losses_kiln), torch.tensor(losses_eager), rtol=1e-4, atol=1e-5)
    assert losses_eager[0] != losses_eager[-1], "the parameters should move"
