"""kiln from Python: compile StableHLO or JAX functions with kiln and run them.

    import kiln
    f = kiln.compile("model.mlir")            # StableHLO text or a path
    y = f(np.ones((2, 3), np.float32))        # a kiln Array; np.asarray(y) is a view

    step = kiln.jit(train_step)               # a JAX function, compiled by kiln (kiln/jax_bridge.py)
    kiln.devices(); kiln.device_put(x)
    with kiln.profile("out.json"): ...        # a trace for Perfetto (kiln/profile.py)
    torch.compile(model, backend="kiln")      # PyTorch graphs on kiln (kiln/torch.py, docs/torch.md)

See docs/python.md.
"""
import importlib.abc
import importlib.util
import sys

try:
    from kiln._kiln import Array, Client, Device, Executable, KilnError
except ImportError as error:  # say how to get the extension, not just that it is missing
    raise ImportError(
        "kiln's extension module kiln._kiln could not be imported "
        f"({error}). Build it with `ninja -C <build> kiln_python` and put <build>/python on "
        "PYTHONPATH, or `pip install .` from the repository root.") from error

from kiln import array as _array  # noqa: F401  (operators, repr, pickling of kiln.Array)
from kiln.config import config
from kiln.api import Compiled, compile, device_put, devices, get_client
from kiln.profile import profile


class _RegisterWithJax(importlib.abc.MetaPathFinder):
    """Registers kiln.Array with JAX (kiln/jax_interop.py) right after JAX is
    imported, so that jnp functions, jax.jit and jax.device_put take kiln
    Arrays without `import kiln` importing JAX itself."""

    def find_spec(self, name, path=None, target=None):
        if name != "jax":
            return None
        sys.meta_path.remove(self)  # one look-up: the real finders find JAX
        spec = importlib.util.find_spec("jax")
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            import kiln.jax_interop  # noqa: F401, PLC0415

        spec.loader.exec_module = exec_module  # this spec's own loader
        return spec


_TORCH_REGISTRY = "torch._dynamo.backends.registry"


def _name_torch_backend(registry) -> None:
    """torch.compile(..., backend="kiln") loads kiln.torch on first use, as an
    installed package's torch_dynamo_backends entry point would (that one
    is in pyproject.toml; this covers a build tree on PYTHONPATH)."""
    from importlib.metadata import EntryPoint  # noqa: PLC0415
    if "kiln" not in registry._BACKENDS:
        registry._BACKENDS["kiln"] = EntryPoint(name="kiln", value="kiln.torch:compile_backend",
                                                group="torch_dynamo_backends")


class _RegisterWithTorch(importlib.abc.MetaPathFinder):
    """Names kiln's torch.compile backend once TorchDynamo's registry is imported."""

    def find_spec(self, name, path=None, target=None):
        if name != _TORCH_REGISTRY:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _name_torch_backend(module)

        spec.loader.exec_module = exec_module
        return spec


if sys.modules.get(_TORCH_REGISTRY) is not None:
    _name_torch_backend(sys.modules[_TORCH_REGISTRY])
else:
    sys.meta_path.insert(0, _RegisterWithTorch())

if sys.modules.get("jax") is not None:
    import kiln.jax_interop  # noqa: F401
elif "jax" not in sys.modules:  # (None there: JAX import is blocked)
    sys.meta_path.insert(0, _RegisterWithJax())


def __getattr__(name):
    # kiln.jit needs JAX, imported on first use: `import kiln` and kiln.compile
    # stay fast and work where JAX is not installed.
    if name in ("jit", "Jitted"):
        from kiln import jax_bridge  # noqa: PLC0415
        globals().update(jit=jax_bridge.jit, Jitted=jax_bridge.Jitted)
        return globals()[name]
    if name == "torch":  # kiln.torch without `import kiln.torch`: imports PyTorch and JAX
        return importlib.import_module("kiln.torch")
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")


__all__ = [
    "Array", "Client", "Compiled", "Device", "Executable", "Jitted", "KilnError",
    "compile", "config", "device_put", "devices", "get_client", "jit", "profile",
]
