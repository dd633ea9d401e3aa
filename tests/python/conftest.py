"""Makes the `kiln` Python package importable for tests/python.

The package and its extension module kiln._kiln live in a build tree
(<build>/python/kiln, made by the CMake target kiln_python). Searched, first
hit wins:
  1. $KILN_PYTHONPATH (one or more directories, os.pathsep-separated), as is;
  2. <repo>/build/python, then every <repo>/build-*/python, that holds kiln/_kiln*.
A test module that imports kiln fails to collect (an error, not a skip) when
the extension is missing; the ImportError says how to build it.
"""
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def _has_extension(directory: pathlib.Path) -> bool:
    return any((directory / "kiln").glob("_kiln*"))


def _kiln_python_path() -> list[str]:
    explicit = os.environ.get("KILN_PYTHONPATH")
    if explicit:
        return [p for p in explicit.split(os.pathsep) if p]
    candidates = [REPO / "build" / "python"] + sorted(REPO.glob("build-*/python"))
    for directory in candidates:
        if _has_extension(directory):
            return [str(directory)]
    # No build holds the extension: the source package's ImportError explains.
    return [str(REPO / "python")]


for _path in reversed(_kiln_python_path()):
    if _path not in sys.path:
        sys.path.insert(0, _path)


def pytest_report_header(config):
    try:
        import kiln  # noqa: PLC0415
    except ImportError as error:
        return f"kiln: NOT IMPORTABLE ({error})"
    return f"kiln: {pathlib.Path(kiln.__file__).parent}"
