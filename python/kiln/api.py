"""The eager API: the default Client, kiln.compile, kiln.devices, kiln.device_put."""
from __future__ import annotations

import os
import pathlib
import threading

import numpy as np

from kiln._kiln import Array, Client, Executable
from kiln.config import config

_clients: dict[tuple[str, int], Client] = {}
_clients_lock = threading.Lock()


def get_client(backend: str | None = None) -> Client:
    """The Client for `backend` (default: kiln.config.backend), created on first use.

    One Client per (back end, number of devices, threads) lives for the whole process, so
    buffers and executables made through the default client stay compatible.
    """
    key = (backend or config.backend, int(config.num_devices), int(config.num_threads))
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = Client(num_devices=key[1], backend=key[0], num_threads=key[2])
            _clients[key] = client
        return client


def devices(backend: str | None = None):
    """The devices of the default Client (or of `backend`'s)."""
    return get_client(backend).devices()


def device_put(x, device=None, *, backend: str | None = None):
    """Puts `x` (an array, or a pytree of arrays) on `device` (default: device 0).

    Numpy arrays, Python scalars and anything with `__dlpack__` are copied into
    a kiln Array; a kiln Array already on `device` is returned as it is.
    """
    client = get_client(backend)
    if isinstance(x, (Array, np.ndarray, np.generic, int, float, complex)) or hasattr(x, "__dlpack__"):
        return _put_leaf(client, x, device)
    import jax  # noqa: PLC0415  (pytrees are jax's; one array needs no jax)

    return jax.tree_util.tree_map(lambda leaf: _put_leaf(client, leaf, device), x)


def _put_leaf(client: Client, x, device):
    if isinstance(x, Array) and (device is None or x.device.id == device.id):
        return x
    if isinstance(x, Array):
        x = np.asarray(x)
    elif not hasattr(x, "__dlpack__") or isinstance(x, np.generic):
        x = np.asarray(x)
    return client.buffer_from_pyval(x, device)


def _read_program(text_or_path) -> str:
    """The program text: a path (str or os.PathLike) is read, anything else is the text."""
    if isinstance(text_or_path, bytes):
        return text_or_path.decode()
    if isinstance(text_or_path, os.PathLike):
        return pathlib.Path(text_or_path).read_text()
    if "\n" not in text_or_path and "{" not in text_or_path:  # no program is one line without a brace
        return pathlib.Path(text_or_path).read_text()
    return text_or_path


class Compiled:
    """A compiled StableHLO function, callable with arrays.

    `f(*args)` runs it and returns its one result as a kiln Array, or a tuple
    of Arrays when the function has several (or none). `f.executable` is the
    runtime Executable (cost_analysis(), optimized_text(), ...).
    """

    def __init__(self, executable: Executable, client: Client):
        self.executable = executable
        self.client = client

    def __call__(self, *args, donate=()):
        results = self.executable.execute([_as_argument(a) for a in args], donate=list(donate))
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self):
        return f"kiln.Compiled({self.executable.name})"

    def __getattr__(self, name):  # parameter_types(), cost_analysis(), ...
        return getattr(self.executable, name)


def _as_argument(x):
    """What Executable.execute accepts: kiln Arrays, numpy arrays, dlpack objects."""
    if isinstance(x, (Array, np.ndarray)):
        return x
    if hasattr(x, "__dlpack__") and not isinstance(x, np.generic):
        return x
    return np.asarray(x)


def compile(text_or_path, *, entry: str = "main", dump_dir: str = "", backend: str | None = None) -> Compiled:  # noqa: A001
    """Compiles StableHLO (text, or a path to a .mlir file) with the default Client.

    Errors in the program raise kiln.KilnError carrying kiln's diagnostic
    (file:line:col of the offending op).
    """
    client = get_client(backend)
    return Compiled(client.compile(_read_program(text_or_path), entry=entry, dump_dir=dump_dir), client)
