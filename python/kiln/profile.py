"""kiln.profile: a trace of what kiln compiles and runs, for Perfetto.

    with kiln.profile("out.json"):
        step(params, x, y)          # kiln.jit, kiln.compile, arrays: anything on kiln

writes the parse, the passes, code generation, every execution with its
kernels, library calls and routines (each on the thread that ran it) and the
host/device copies to out.json in the Chrome trace event format; open it in
https://ui.perfetto.dev or chrome://tracing. See docs/profiling.md.
"""
from __future__ import annotations

import contextlib
import os

from kiln import _kiln


@contextlib.contextmanager
def profile(path: str | os.PathLike):
    """Records a trace while the block runs and writes it to `path` when the
    block ends (also when it raises). One trace records at a time: kiln's
    tracing is process-wide, shared with the C++ tools and the PJRT plugin."""
    if _kiln.trace_enabled():
        raise RuntimeError("kiln.profile: a trace is already recording (traces do not nest)")
    _kiln.trace_start()
    try:
        yield
    finally:
        _kiln.trace_stop()
        _kiln.trace_write(os.fspath(path))
