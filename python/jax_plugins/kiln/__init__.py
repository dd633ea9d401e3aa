"""kiln's PJRT plugin for JAX: `JAX_PLATFORMS=kiln python train.py` runs
unmodified JAX programs on kiln (docs/pjrt.md).

JAX finds this module in the `jax_plugins` namespace package (or through the
entry point that `pip install .` declares) and calls initialize(). It imports
neither kiln's extension nor anything heavy.
"""
import os

_LIBRARY_NAME = "libkiln_pjrt.so"


# The plugin library JAX was given, once initialize() registered it (kiln.profile
# collects its tracer then); None while JAX has not been asked for kiln.
registered_library: str | None = None


def library_path() -> str:
    """The plugin library: $KILN_PJRT_LIBRARY, else the one beside this file."""
    return os.environ.get("KILN_PJRT_LIBRARY") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), _LIBRARY_NAME)


def _requested(platforms) -> bool:
    return platforms is not None and "kiln" in [p.strip() for p in platforms.split(",")]


class _LowerAsCpu(dict):
    """kiln's lowering rules: those registered for platform "kiln", else
    JAX's rules for "cpu" (kiln runs the LAPACK and other custom calls they
    emit), including rules registered after the plugin."""

    def __init__(self, own, cpu):
        super().__init__(own)
        self._cpu = cpu

    def __contains__(self, primitive):
        return dict.__contains__(self, primitive) or primitive in self._cpu

    def __missing__(self, primitive):
        return self._cpu[primitive]


def _share_jax_compilation_cache(jax_cache_dir):
    """A cache directory given to JAX (jax_compilation_cache_dir) also keeps
    kiln's compiled kernels, in its subdirectory kiln/, unless KILN_CACHE_DIR
    names another. JAX's persistent cache itself serves only the platforms it
    names, and a kiln executable serializes as its program, compiled again
    when loaded: kiln's kernel cache is what makes that compile fast."""
    if jax_cache_dir and "://" not in jax_cache_dir and not os.environ.get("KILN_CACHE_DIR"):
        os.environ["KILN_CACHE_DIR"] = os.path.join(jax_cache_dir, "kiln")  # read when the client starts


def initialize():
    from jax._src import config, xla_bridge
    from jax._src.interpreters import mlir

    # Only when asked for: with JAX_PLATFORMS unset, JAX would start every
    # registered platform, and a user who installed kiln for kiln.jit keeps
    # XLA:CPU as JAX's default.
    if not _requested(config.jax_platforms.value or os.environ.get("JAX_PLATFORMS")):
        return
    _share_jax_compilation_cache(config.compilation_cache_dir.value)
    path = library_path()
    if not os.path.isfile(path):
        raise RuntimeError(f"kiln's PJRT plugin library is missing: {path} "
                           "(build it with `ninja -C build kiln_pjrt`, or set KILN_PJRT_LIBRARY)")
    xla_bridge.register_plugin("kiln", library_path=path)
    global registered_library
    registered_library = path
    lowerings = mlir._platform_specific_lowerings
    lowerings["kiln"] = _LowerAsCpu(lowerings.get("kiln", {}), lowerings["cpu"])
    # JAX lists the platforms that honour donation by name.
    if "kiln" not in mlir._platforms_with_donation:
        mlir._platforms_with_donation.append("kiln")
