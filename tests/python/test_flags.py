"""KILN_FLAGS and the KILN_* variables as the Python package reads them: the
flags are checked against the same registry as the command-line tools
(kiln/support/flags.cpp), so the tools' flags are skipped, a flag nothing
reads is an error, and bad values are clear errors naming the variable."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import kiln
from kiln.config import Config, ConfigError, flag_table


def registry_flags():
    """(name, value name or None) of every row of `kiln help flags`."""
    return [(m[1], m[2]) for m in re.finditer(r"^  (-\S+)(?: (\S+))?  \[", flag_table(), re.M)]


def test_every_flag_of_the_registry_is_accepted():
    flags = registry_flags()
    assert {"--pass-timing", "--cpu_devices", "--explain_recompiles"} <= {name for name, _ in flags}
    for name, value in flags:
        word = name if value is None else f"{name}={1 if value == 'N' else 'x'}"
        Config.from_environment({"KILN_FLAGS": word})  # raises if Python rejected a flag of the registry


def test_tool_flags_are_skipped_and_python_flags_read():
    config = Config.from_environment(
        {"KILN_FLAGS": "--pass-timing --dump-dir=/tmp/d --stats --cpu_devices=2 --explain-recompiles --threads 3"})
    assert (config.explain_recompiles, config.num_threads) == (True, 3)
    assert Config.from_environment({"KILN_FLAGS": "--explain_recompiles=false"}).explain_recompiles is False


def test_threads_flag_wins_over_kiln_num_threads():
    config = Config.from_environment({"KILN_FLAGS": "--threads=2", "KILN_NUM_THREADS": "5"})
    assert config.num_threads == 2
    assert Config.from_environment({"KILN_NUM_THREADS": "5"}).num_threads == 5


@pytest.mark.parametrize("flags, message", [
    ("--bogus", "KILN_FLAGS: unknown option '--bogus': no kiln tool or library reads it"),
    ("--cpu_devices=two", "KILN_FLAGS: --cpu_devices needs a whole number from 1 to 1024, got 'two'"),
    ("stray", "KILN_FLAGS: 'stray' is not an option"),
    ("--explain_recompiles=maybe", "takes no value other than true or false"),
])
def test_bad_kiln_flags_are_errors(flags, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        Config.from_environment({"KILN_FLAGS": flags})


@pytest.mark.parametrize("variable, value, expected", [
    ("KILN_NUM_THREADS", "abc", "KILN_NUM_THREADS='abc': expected a whole number from 0 to 1024"),
    ("KILN_NUM_THREADS", "-1", "KILN_NUM_THREADS='-1': expected a whole number from 0 to 1024"),
    ("KILN_NUM_DEVICES", "abc", "KILN_NUM_DEVICES='abc': expected a whole number from 1 to 1024"),
    ("KILN_NUM_DEVICES", "0", "KILN_NUM_DEVICES='0': expected a whole number from 1 to 1024"),
])
def test_bad_numbers_name_their_variable(variable, value, expected):
    with pytest.raises(ConfigError, match=re.escape(expected)):
        Config.from_environment({variable: value})
    assert issubclass(ConfigError, ValueError)


def run_python(code, **env):
    """Runs `code` in a fresh interpreter that imports this build's kiln."""
    environ = dict(os.environ, PYTHONPATH=str(pathlib.Path(kiln.__file__).parent.parent), **env)
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)


def test_import_kiln_reports_a_bad_variable_clearly():
    result = run_python("import kiln", KILN_NUM_THREADS="abc")
    assert result.returncode != 0
    assert "kiln.config.ConfigError: KILN_NUM_THREADS='abc'" in result.stderr
    assert "invalid literal for int()" not in result.stderr
    result = run_python("import kiln", KILN_FLAGS="--bogus")
    assert "kiln.config.ConfigError: KILN_FLAGS: unknown option '--bogus'" in result.stderr


def test_runtime_reads_cpu_devices_from_kiln_flags():
    result = run_python("import kiln; print(len(kiln.devices()))", KILN_FLAGS="--cpu-devices=3 --pass-timing")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3"]
