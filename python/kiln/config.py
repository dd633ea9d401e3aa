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
    KILN_FLAGS="--explain_recompiles"   flags, as XLA_FLAGS does for XLA: the
                                        package reads --explain_recompiles and
                                        --threads N (over KILN_NUM_THREADS); the
                                        runtime under it reads --cpu_devices=N

KILN_FLAGS is shared with the command-line tools and checked against the one
registry of flags (kiln/support/flags.cpp, `flag_table()` prints it): flags of
the tools are skipped here, a flag nothing reads is an error. A bad value in
any of these variables raises ConfigError at `import kiln`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from kiln import _kiln


class ConfigError(ValueError):
    """A KILN_* environment variable holds something kiln cannot use."""


def flag_table() -> str:
    """Every flag KILN_FLAGS may hold, what it does and what reads it."""
    return _kiln.flag_table()


def _env_flags(environ) -> dict:
    try:
        return _kiln.parse_env_flags(environ.get("KILN_FLAGS", ""))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _whole_number(environ, name: str, default: int, low: int, high: int) -> int:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ConfigError(f"{name}={text!r}: expected a whole number from {low} to {high}")
    return value


@dataclass
class Config:
    backend: str = "cpu"
    num_devices: int = 1
    num_threads: int = 0
    explain_recompiles: bool = False

    @classmethod
    def from_environment(cls, environ=os.environ) -> "Config":
        flags = _env_flags(environ)
        threads = _whole_number(environ, "KILN_NUM_THREADS", 0, 0, 1024)
        return cls(
            backend=environ.get("KILN_BACKEND", "") or "cpu",
            num_devices=_whole_number(environ, "KILN_NUM_DEVICES", 1, 1, 1024),
            num_threads=int(flags.get("--threads", threads)),
            explain_recompiles=flags.get("--explain_recompiles") == "true",
        )


config = Config.from_environment()
