"""kiln.profile: a trace of what kiln compiles and runs, for Perfetto.

    with kiln.profile("out.json"):
        step(params, x, y)          # kiln.jit, kiln.compile, arrays, and jax.jit on kiln devices

writes the parse, the passes, code generation, every execution with its
kernels, library calls and routines (each on the thread that ran it) and the
host/device copies to out.json in the Chrome trace event format; open it in
https://ui.perfetto.dev or chrome://tracing. See docs/profiling.md.

The PJRT plugin (jax.jit on kiln devices) is a copy of kiln with a tracer of
its own: when JAX has loaded it, the profile records it too, as a second
process in the trace ("kiln PJRT plugin").
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import sys
import tempfile

from kiln import _kiln

_PLUGIN_PID = 2


def _loaded_plugin():
    """The plugin library, when JAX has registered kiln's plugin; else None."""
    module = sys.modules.get("jax_plugins.kiln")
    path = getattr(module, "registered_library", None)
    if path is None:
        return None
    library = ctypes.CDLL(path)  # the copy JAX loaded: dlopen of a loaded path returns it
    library.KilnPjrt_TraceStart.restype = ctypes.c_bool
    library.KilnPjrt_TraceStopAndWrite.restype = ctypes.c_char_p
    library.KilnPjrt_TraceStopAndWrite.argtypes = [ctypes.c_char_p]
    return library


def _merge_plugin_trace(path, plugin_path):
    """Appends the plugin's events to the trace at `path`, as process 2."""
    with open(path) as f:
        trace = json.load(f)
    with open(plugin_path) as f:
        plugin_events = json.load(f)["traceEvents"]
    for event in plugin_events:
        event["pid"] = _PLUGIN_PID
        if event.get("name") == "process_name":
            event["args"] = {"name": "kiln PJRT plugin"}
    trace["traceEvents"] += plugin_events
    with open(path, "w") as f:
        json.dump(trace, f)


@contextlib.contextmanager
def profile(path: str | os.PathLike):
    """Records a trace while the block runs and writes it to `path` when the
    block ends (also when it raises). One trace records at a time: kiln's
    tracing is process-wide, shared with the C++ tools and the PJRT plugin."""
    if _kiln.trace_enabled():
        raise RuntimeError("kiln.profile: a trace is already recording (traces do not nest)")
    plugin = _loaded_plugin()
    # The plugin may record already (KILN_TRACE): that session keeps it.
    plugin_recording = plugin is not None and plugin.KilnPjrt_TraceStart()
    _kiln.trace_start()
    try:
        yield
    finally:
        _kiln.trace_stop()
        _kiln.trace_write(os.fspath(path))
        if plugin_recording:
            with tempfile.TemporaryDirectory() as scratch:
                plugin_path = os.path.join(scratch, "plugin.json")
                error = plugin.KilnPjrt_TraceStopAndWrite(plugin_path.encode()).decode()
                if error:
                    raise RuntimeError(f"kiln.profile: the PJRT plugin's trace: {error}")
                _merge_plugin_trace(os.fspath(path), plugin_path)
