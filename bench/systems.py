"""The systems a workload runs on. Each adapter turns a workload and its NumPy inputs into
a `Prepared` callable: inputs already placed where the system keeps them, `call()` runs
once and waits for the result, `results(raw)` copies the results to NumPy for checking.

A system whose package is missing is `unavailable` with a reason ("not installed");
everything else that goes wrong surfaces as an exception from `prepare` or `call`,
which the runner turns into a table cell.
"""
import glob
import importlib
import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [tree]


def flatten(tree):
    """Results of any system as a flat list of NumPy arrays (tuples, lists and dicts nest)."""
    return [np.asarray(leaf) for leaf in _leaves(tree)]


class Prepared:
    def __init__(self, call, results=flatten):
        self.call = call          # () -> raw results, finished
        self.results = results    # raw -> list of numpy arrays


class System:
    name = ""
    note = ""

    def __init__(self, threads=None):
        self.threads = threads   # worker threads to use, None for the library's default

    def unavailable(self):
        """None when usable, else why not (e.g. 'not installed')."""
        return None

    def prepare(self, workload, inputs):
        raise NotImplementedError

    def start_runtime(self):
        """Creates what every program of this system shares (a client, a thread pool), so that a
        memory probe's baseline includes it."""

    def to_numpy(self, raw):
        """Raw results of `call` or `fresh_compile` as a flat list of NumPy arrays."""
        return flatten(raw)

    def fresh_compile(self, workload, inputs):
        """Trace, compile and run once a function never seen before; returns the raw results."""
        raise NotImplementedError


def _module_missing(*names):
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            return "not installed"
        except Exception as e:  # a broken install is still not usable
            return f"import error: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
    return None


def fresh(fn):
    """A new function object with fn's behaviour, so jit caches keyed on the function miss."""
    return lambda *args: fn(*args)


# The platforms JAX starts in this process: XLA:CPU, and kiln's PJRT plugin
# when the kiln_pjrt system is among those measured (JAX starts its platforms
# once, for every system of the process).
JAX_PLATFORMS = ["cpu"]


def configured_jax():
    import jax
    jax.config.update("jax_platforms", ",".join(JAX_PLATFORMS))
    return jax


class Xla(System):
    name = "xla"
    note = "jax.jit on the CPU platform"

    def unavailable(self):
        return _module_missing("jax")

    def _jax(self):
        return configured_jax()

    def prepare(self, workload, inputs):
        jax = self._jax()
        fn = jax.jit(workload.jax_fn)
        args = [jax.device_put(x) for x in inputs]
        return Prepared(lambda: jax.block_until_ready(fn(*args)))

    def start_runtime(self):
        jax = self._jax()
        jax.block_until_ready(jax.jit(lambda x: x + 1)(np.zeros(1, np.float32)))

    def fresh_compile(self, workload, inputs):
        jax = self._jax()
        return jax.block_until_ready(jax.jit(fresh(workload.jax_fn))(*inputs))


def stablehlo_text(workload, inputs):
    """The StableHLO text kiln compiles for this workload (kiln.jit's lowering when kiln is
    importable, else JAX's own, which differs only in the function's name and signature form)."""
    try:
        kiln = import_kiln()
        if hasattr(kiln, "jit"):
            return kiln.jit(workload.jax_fn).lower(*inputs).as_text()
    except ImportError:
        pass
    import jax
    return jax.jit(workload.jax_fn).lower(*inputs).as_text()


def kiln_python_dirs():
    """Where a built kiln Python package may be, most specific first."""
    dirs = []
    if os.environ.get("KILN_PYTHONPATH"):
        dirs += os.environ["KILN_PYTHONPATH"].split(os.pathsep)
    if os.environ.get("KILN_BUILD_DIR"):
        dirs.append(os.path.join(os.environ["KILN_BUILD_DIR"], "python"))
    dirs += [os.path.join(REPO, "build", "python"), os.path.join(REPO, "build-runtime", "python")]
    others = glob.glob(os.path.join(REPO, "build-*", "python"))
    dirs += sorted(others, key=os.path.getmtime, reverse=True)
    return [d for d in dirs if os.path.isfile(os.path.join(d, "kiln", "__init__.py"))]


def import_kiln():
    """kiln from KILN_PYTHONPATH, else as installed, else from a build tree."""
    explicit = os.environ.get("KILN_PYTHONPATH")
    if not explicit:
        try:
            return importlib.import_module("kiln")
        except ImportError:
            pass
    for d in kiln_python_dirs():
        sys.path.insert(0, d)
        try:
            return importlib.import_module("kiln")
        except ImportError:
            sys.path.remove(d)
    raise ImportError("kiln not found (set KILN_PYTHONPATH to <build>/python)")


class Kiln(System):
    name = "kiln"

    def __init__(self, threads=None):
        super().__init__(threads)
        self._kiln = None

    def unavailable(self):
        try:
            self._kiln = import_kiln()
        except ImportError:
            return "not installed"
        except Exception as e:
            return f"import error: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        if not hasattr(self._kiln, "jit"):
            return "not installed (kiln has no jit yet)"
        self.note = f"kiln.jit from {os.path.dirname(os.path.dirname(self._kiln.__file__))}"
        if self.threads:
            self._use_threads(self.threads)
        return None

    def _use_threads(self, n):
        """kiln.jit compiles through kiln's default Client; give it n kernel threads."""
        self._kiln.config.num_threads = n

    def _block(self, out):
        for leaf in _leaves(out):
            if hasattr(leaf, "block_until_ready"):
                leaf.block_until_ready()
        return out

    def prepare(self, workload, inputs):
        fn = self._kiln.jit(workload.jax_fn)
        args = self._place(inputs)
        return Prepared(lambda: self._block(fn(*args)), results=self.to_numpy)

    def _place(self, inputs):
        """Inputs as kiln device buffers when kiln offers a way, else the NumPy arrays."""
        put = getattr(self._kiln, "device_put", None)
        return [put(x) for x in inputs] if put else list(inputs)

    def start_runtime(self):
        # As for XLA: a first tiny program, so that JAX's tracing and lowering machinery
        # (imported and cached on first use, ~5 MB of heap) is not counted as this workload's memory.
        self._block(self._kiln.jit(lambda x: x + 1)(np.zeros(1, np.float32)))

    def fresh_compile(self, workload, inputs):
        return self._block(self._kiln.jit(fresh(workload.jax_fn))(*inputs))


class KilnPjrt(System):
    name = "kiln_pjrt"
    note = "unmodified jax.jit on the kiln platform (kiln's PJRT plugin)"

    def __init__(self, threads=None):
        super().__init__(threads)
        if "kiln" not in JAX_PLATFORMS:
            JAX_PLATFORMS.append("kiln")
        if threads:
            os.environ["KILN_NUM_THREADS"] = str(threads)  # read when the plugin's client starts

    def unavailable(self):
        # JAX finds the plugin as the module jax_plugins.kiln: its directory
        # must be importable before JAX is.
        for d in kiln_python_dirs():
            if os.path.isfile(os.path.join(d, "jax_plugins", "kiln", "libkiln_pjrt.so")):
                if d not in sys.path:
                    sys.path.insert(0, d)
                missing = _module_missing("jax")
                if missing:
                    return missing
                self.note += f" ({d})"
                configured_jax()  # before any system starts JAX's platforms
                from jax._src import xla_bridge
                if xla_bridge.jax_plugins is None:
                    # JAX was imported before the directory was on sys.path,
                    # so it will not find the plugin: register it here.
                    import jax_plugins.kiln
                    jax_plugins.kiln.initialize()
                return None
        return "not built (no jax_plugins/kiln/libkiln_pjrt.so in a kiln build)"

    def _device(self):
        return configured_jax().devices("kiln")[0]

    def prepare(self, workload, inputs):
        jax = configured_jax()
        fn = jax.jit(workload.jax_fn)
        args = [jax.device_put(x, self._device()) for x in inputs]
        return Prepared(lambda: jax.block_until_ready(fn(*args)))

    def start_runtime(self):
        jax = configured_jax()
        jax.block_until_ready(jax.jit(lambda x: x + 1)(jax.device_put(np.zeros(1, np.float32), self._device())))

    def fresh_compile(self, workload, inputs):
        jax = configured_jax()
        args = [jax.device_put(x, self._device()) for x in inputs]
        return jax.block_until_ready(jax.jit(fresh(workload.jax_fn))(*args))


class NumPy(System):
    name = "numpy"
    note = f"hand-written NumPy {np.__version__}"

    def prepare(self, workload, inputs):
        if workload.numpy_fn is None:
            raise NotApplicable("no NumPy equivalent")
        return Prepared(lambda: workload.numpy_fn(*inputs))

    def fresh_compile(self, workload, inputs):
        raise NotApplicable("NumPy compiles nothing")


class NotApplicable(Exception):
    """The system has no version of this workload (not an error of the system)."""


class Iree(System):
    name = "iree"
    note = "iree-base-compiler/runtime, llvm-cpu target (host CPU), local-task driver, same StableHLO text as kiln"

    def unavailable(self):
        return _module_missing("iree.compiler", "iree.runtime", "jax")

    def _load(self, text):
        import iree.compiler as compiler
        import iree.runtime as runtime
        if self.threads and not getattr(Iree, "_flags_set", False):
            runtime.flags.parse_flags(f"--task_topology_max_group_count={self.threads}")
            Iree._flags_set = True
        vmfb = compiler.compile_str(text, target_backends=["llvm-cpu"], input_type="stablehlo",
                                    extra_args=["--iree-llvmcpu-target-cpu=host"])
        config = runtime.Config("local-task")
        context = runtime.SystemContext(config=config)
        context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
        module_name = text.split("module @", 1)[1].split(" ", 1)[0]
        return runtime, config, context.modules[module_name]["main"]

    def prepare(self, workload, inputs):
        runtime, config, main = self._load(stablehlo_text(workload, inputs))
        args = [runtime.asdevicearray(config.device, x) for x in inputs]
        return Prepared(lambda: main(*args), results=self.to_numpy)

    def to_numpy(self, raw):
        return [np.asarray(x.to_host()) for x in _leaves(raw)]

    def fresh_compile(self, workload, inputs):
        runtime, config, main = self._load(stablehlo_text(_fresh_workload(workload), inputs))
        return main(*[runtime.asdevicearray(config.device, x) for x in inputs])


def _fresh_workload(workload):
    import copy
    w = copy.copy(workload)
    w.jax_fn = fresh(workload.jax_fn)
    return w


class Torch(System):
    name = "torch"
    note = "PyTorch eager on CPU"
    compiled = False

    def unavailable(self):
        return _module_missing("torch")

    def _wrap(self, fn):
        return fn

    def _threads(self, torch):
        if self.threads:
            torch.set_num_threads(self.threads)

    def prepare(self, workload, inputs):
        import torch
        if workload.torch_fn is None:
            raise NotApplicable("no PyTorch equivalent")
        self._threads(torch)
        args = [_to_torch(torch, x) for x in inputs]
        fn = self._wrap(workload.torch_fn)
        return Prepared(lambda: fn(*args), results=self.to_numpy)

    def to_numpy(self, raw):
        return [_from_torch(t) for t in _leaves(raw)]

    def fresh_compile(self, workload, inputs):
        raise NotApplicable("eager: nothing to compile")


class TorchCompile(Torch):
    name = "torch_compile"
    note = "torch.compile (inductor) on CPU"

    def _wrap(self, fn):
        import torch
        # The training steps call torch.autograd.grad: traced into the graph
        # (forward and backward compiled as one), not a graph break that
        # sends the whole step back to eager.
        torch._dynamo.config.trace_autograd_ops = True
        return torch.compile(fn)

    def fresh_compile(self, workload, inputs):
        import torch
        if workload.torch_fn is None:
            raise NotApplicable("no PyTorch equivalent")
        torch._dynamo.reset()  # forget earlier compilations of the same code
        return self._wrap(workload.torch_fn)(*[_to_torch(torch, x) for x in inputs])


class KilnTorch(TorchCompile):
    name = "kiln_torch"
    note = "torch.compile(backend=\"kiln\"): the PyTorch equivalent's graphs compiled by kiln"

    def unavailable(self):
        missing = _module_missing("torch")
        if missing:
            return missing
        try:
            kiln = import_kiln()
            import kiln.torch  # noqa: F401
        except ImportError as e:
            return f"not installed ({e})"
        if self.threads:
            kiln.config.num_threads = self.threads  # kiln's kernels; torch's own threads as for torch
        return None

    def _wrap(self, fn):
        import torch
        torch._dynamo.config.trace_autograd_ops = True  # as for torch_compile
        # torch.compile's defaults, as torch_compile gets: the first compile
        # is for the inputs' concrete shapes, one kiln executable per shape.
        # (dynamic=False would cost ~3 us a call more: Dynamo patches its
        # config around every call of such a function.)
        return torch.compile(fn, backend="kiln")


def _to_torch(torch, x):
    import ml_dtypes
    if x.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(x.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(x))


def _from_torch(t):
    import ml_dtypes
    import torch
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


ALL = {cls.name: cls for cls in (Kiln, KilnPjrt, Xla, NumPy, Torch, TorchCompile, KilnTorch, Iree)}
DEFAULT_ORDER = ["kiln", "kiln_pjrt", "xla", "numpy", "torch", "torch_compile", "kiln_torch", "iree"]
