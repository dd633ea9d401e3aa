"""kiln from Python: compile StableHLO or JAX functions with kiln and run them.

    import kiln
    f = kiln.compile("model.mlir")            # StableHLO text or a path
    y = f(np.ones((2, 3), np.float32))        # a kiln Array; np.asarray(y) is a view

    step = kiln.jit(train_step)               # a JAX function, compiled by kiln (kiln/jax_bridge.py)
    kiln.devices(); kiln.device_put(x)
    with kiln.profile("out.json"): ...        # a trace for Perfetto (kiln/profile.py)

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
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")


__all__ = [
    "Array", "Client", "Compiled", "Device", "Executable", "Jitted", "KilnError",
    "compile", "config", "device_put", "devices", "get_client", "jit", "profile",
]
