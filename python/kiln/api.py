"""The eager API: the default Client, kiln.compile, kiln.devices, kiln.device_put."""
from __future__ import annotations

import os
import pathlib
import threading

import numpy as np

from kiln._kiln import Array, Client, Executable, KilnError
from kiln.config import config

_clients: dict[tuple, Client] = {}
_clients_lock = threading.Lock()
# The on-disk compilation cache of the default clients (read once, as kiln.config's settings are).
_ENV_CACHE_DIR = os.environ.get("KILN_CACHE_DIR", "")


def client_key(backend: str | None = None, cache_dir: str | os.PathLike | None = None) -> tuple:
    """What picks a default Client: (back end, devices, threads, cache directory),
    from the arguments and kiln.config as it is now."""
    cache = _ENV_CACHE_DIR if cache_dir is None else os.fspath(cache_dir)
    return (backend or config.backend, int(config.num_devices), int(config.num_threads), cache)


def get_client(backend: str | None = None, *, cache_dir: str | os.PathLike | None = None) -> Client:
    """The Client for `backend` (default: kiln.config.backend), created on first use.

    One Client per (back end, number of devices, threads, cache directory)
    lives for the whole process, so buffers and executables made through the
    default client stay compatible; changing kiln.config.num_threads (or
    num_devices) makes later calls use another Client. `cache_dir` (default
    $KILN_CACHE_DIR, else none) is the cpu back end's on-disk compilation cache.
    """
    return client_for_key(client_key(backend, cache_dir))


def client_for_key(key: tuple) -> Client:
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            backend, num_devices, num_threads, cache_dir = key
            if cache_dir:
                check_cache_dir(cache_dir)
            client = Client(num_devices=num_devices, backend=backend, num_threads=num_threads, cache_dir=cache_dir)
            _clients[key] = client
        return client


def check_cache_dir(path) -> None:
    """Creates the compilation cache directory `path`, or raises KilnError
    (INVALID_ARGUMENT) saying why it cannot be one."""
    path = pathlib.Path(path)
    if path.exists() and not path.is_dir():
        raise kiln_error("INVALID_ARGUMENT", f"the compilation cache directory '{path}' is a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise kiln_error("INVALID_ARGUMENT", f"cannot create the compilation cache directory '{path}': "
                         f"{error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise kiln_error("INVALID_ARGUMENT", f"the compilation cache directory '{path}' is not writable")


def kiln_error(code: str, message: str) -> KilnError:
    """A KilnError like those the extension raises (`code`, `message`)."""
    error = KilnError(message)
    error.code, error.message = code, message
    return error


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


_BYTECODE_MAGIC = b"ML\xefR"


def _read_program(text_or_path) -> tuple[str | bytes, str]:
    """(the program, the name its diagnostics give it): a path (str or
    os.PathLike) is read and names itself; anything else is the program.
    A StableHLO portable artifact (MLIR bytecode, e.g. jax.export's
    `mlir_module_serialized`) stays bytes; anything else is text."""
    if isinstance(text_or_path, bytes):
        if text_or_path.startswith(_BYTECODE_MAGIC):
            return text_or_path, "<input>"
        return _decode(text_or_path, "<input>"), "<input>"
    if isinstance(text_or_path, str) and not text_or_path.strip():
        raise ValueError("kiln.compile: got an empty string, not a program or a path")
    if isinstance(text_or_path, str) and ("\n" in text_or_path or "{" in text_or_path):
        return text_or_path, "<input>"  # no program is one line without a brace
    path = pathlib.Path(text_or_path)
    if path.is_dir():
        raise IsADirectoryError(f"kiln.compile: '{path}' is a directory, not a program file")
    data = path.read_bytes()
    if data.startswith(_BYTECODE_MAGIC):
        return data, str(path)
    return _decode(data, str(path)), str(path)


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        raise kiln_error("INVALID_ARGUMENT", f"{name}: not a StableHLO text file (byte {error.start} is not "
                         "UTF-8)") from None


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
    """Compiles StableHLO (text, a StableHLO portable artifact as bytes, or a
    path to either) with the default Client.

    Errors in the program raise kiln.KilnError carrying kiln's diagnostic
    (file:line:col of the offending op).
    """
    client = get_client(backend)
    text, filename = _read_program(text_or_path)
    return Compiled(client.compile(text, entry=entry, dump_dir=dump_dir, filename=filename), client)
