"""examples/train_digits.py runs end to end, and kiln's training matches jax.jit's.

One short epoch of the MLP through kiln's PJRT plugin (plain jax.jit on the
kiln platform) and through kiln.jit (the full run, both models to 95% test
accuracy, is `examples/train_digits.py`; see docs/pjrt.md and docs/python.md)."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("how", [[], ["--kiln-jit", "--backend", "cpu"]], ids=["plugin", "kiln_jit"])
def test_train_digits_quick_run_matches_jax(how):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("JAX_PLATFORMS", None)
    run = subprocess.run([sys.executable, str(REPO / "examples" / "train_digits.py"), "--quick", "--epochs", "1",
                          "--model", "mlp", *how],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ("PJRT plugin" in run.stdout) == (not how), run.stdout
    assert re.search(r"mlp epoch  1/1  loss [\d.]+  test accuracy", run.stdout), run.stdout
    difference = re.search(r"largest parameter difference kiln vs jax.jit ([\d.e+-]+)", run.stdout)
    assert difference and float(difference.group(1)) < 1e-4, run.stdout
