"""kiln's Python-side settings, in one place.

`kiln.config` is a module-level object; change its fields at any time:

    kiln.config.backend = "interpreter"     # the default Client's back end
    kiln.config.explain_recompiles = True   # kiln.jit says why it compiles again

Initial values come from the environment, so a script can be switched without
editing it:

    KILN_BACKEND=interpreter            the default back end ("cpu" if unset)
    KILN_NUM_DEVICES=N                  devices of the default Client (1 if unset)
    KILN_NUM_THREADS=N                  kernel threads of the default Client
                                        (0 or unset: one per core)
    KILN_FLAGS="--explain_recompiles"   (also --explain-recompiles) as XLA_FLAGS
                                        does for XLA; the C++ side reads its own
                                        flags from the same variable
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

EXPLAIN_RECOMPILES_FLAGS = ("--explain_recompiles", "--explain-recompiles")


def _flag_set(flags: str, names) -> bool:
    for word in shlex.split(flags):
        name, _, value = word.partition("=")
        if name in names:
            return value.lower() not in ("0", "false", "no")
    return False


@dataclass
class Config:
    backend: str = "cpu"
    num_devices: int = 1
    num_threads: int = 0
    explain_recompiles: bool = False

    @classmethod
    def from_environment(cls, environ=os.environ) -> "Config":
        flags = environ.get("KILN_FLAGS", "")
        return cls(
            backend=environ.get("KILN_BACKEND", "") or "cpu",
            num_devices=int(environ.get("KILN_NUM_DEVICES", "") or 1),
            num_threads=int(environ.get("KILN_NUM_THREADS", "") or 0),
            explain_recompiles=_flag_set(flags, EXPLAIN_RECOMPILES_FLAGS),
        )


config = Config.from_environment()
