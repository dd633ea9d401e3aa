"""kiln from Python: compile StableHLO or JAX functions with kiln and run them.

    import kiln
    f = kiln.compile("model.mlir")            # StableHLO text or a path
    y = f(np.ones((2, 3), np.float32))        # a kiln Array; np.asarray(y) is a view

    step = kiln.jit(train_step)               # a JAX function, compiled by kiln (kiln/jax_bridge.py)
    kiln.devices(); kiln.device_put(x)

See docs/python.md.
"""
try:
    from kiln._kiln import Array, Client, Device, Executable, KilnError
except ImportError as error:  # say how to get the extension, not just that it is missing
    raise ImportError(
        "kiln's extension module kiln._kiln could not be imported "
        f"({error}). Build it with `ninja -C <build> kiln_python` and put <build>/python on "
        "PYTHONPATH, or `pip install .` from the repository root.") from error

from kiln.config import config
from kiln.api import Compiled, compile, device_put, devices, get_client


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
    "compile", "config", "device_put", "devices", "get_client", "jit",
]
