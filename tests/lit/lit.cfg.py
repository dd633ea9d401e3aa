# lit configuration for kiln's FileCheck tests: `lit tests/lit`.
#
# Tools come from the build directory ($KILN_BUILD_DIR, default <repo>/build:
# build/bin/kiln-opt, build/bin/kiln) and from LLVM 19 (FileCheck, not).
import os
import shutil

import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
build_dir = os.path.abspath(os.environ.get("KILN_BUILD_DIR", os.path.join(repo_root, "build")))
config.test_exec_root = os.path.join(build_dir, "lit")


def find_filecheck():
    """FileCheck from $FILECHECK, LLVM 19's install directory, or PATH."""
    candidates = [os.environ.get("FILECHECK"), "/usr/lib/llvm-19/bin/FileCheck", shutil.which("FileCheck"),
                  shutil.which("FileCheck-19")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    lit_config.fatal("FileCheck not found: install llvm-19-tools or set FILECHECK")


filecheck = find_filecheck()
kiln_bin = os.path.join(build_dir, "bin")
if not os.access(os.path.join(kiln_bin, "kiln-opt"), os.X_OK):
    lit_config.fatal(f"kiln-opt not found in {kiln_bin}: build kiln first or set KILN_BUILD_DIR")

# Tests name their tools bare (`kiln-opt %s | FileCheck %s`); the build's bin
# directory and FileCheck's directory (which also holds `not`) come first.
config.environment["PATH"] = os.pathsep.join(
    [kiln_bin, os.path.dirname(filecheck), config.environment.get("PATH", os.environ.get("PATH", ""))])
# `kiln test`'s per-test limit (KILN_TEST_TIMEOUT_S, default 60 s), raised by
# scripts/sanitize.sh for the slow sanitizer builds: passed on to the tests.
if "KILN_TEST_TIMEOUT_S" in os.environ:
    config.environment["KILN_TEST_TIMEOUT_S"] = os.environ["KILN_TEST_TIMEOUT_S"]
if os.path.basename(filecheck) != "FileCheck":  # e.g. FileCheck-19 on PATH
    config.substitutions.append((r"\bFileCheck\b", filecheck))

# Multi-process tests (kiln launch) need a kiln built with Gloo.
cmake_cache = os.path.join(build_dir, "CMakeCache.txt")
if os.path.exists(cmake_cache):
    with open(cmake_cache) as cache:
        lines = cache.read().splitlines()
    has_library = any(line.startswith("GLOO_LIBRARY:") and not line.endswith("NOTFOUND") for line in lines)
    if has_library and "KILN_WITH_GLOO:BOOL=OFF" not in lines:
        config.available_features.add("gloo")

# An AVX2 host, for the test of --cpu_max_isa=avx2.
if os.path.exists("/proc/cpuinfo"):
    with open("/proc/cpuinfo") as cpuinfo:
        host_flags = next((line.split(":", 1)[1].split() for line in cpuinfo if line.startswith("flags")), [])
    if "avx2" in host_flags:
        config.available_features.add("avx2")
